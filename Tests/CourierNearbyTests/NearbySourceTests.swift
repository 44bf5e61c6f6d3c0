import BusTestSupport
import CourierTools
import Foundation
import Testing

/// The app sees a network drop as it sees a local one — its open call with the Inbox file — and
/// an annotation saying it came from a nearby device. The app is Python against the raw D-Bus
/// contract (launched by the broker), so what it records is what travelled on the bus.
@Suite("Nearby: the app sees where a file came from", .serialized)
struct NearbySourceTests {
    static let viewer = "com.acme.viewer"

    /// An app slow to answer its open, which then declines it: the file is durably in the Inbox
    /// before the app is asked, so the sender hears success; the broker logs the app's answer.
    @Test func anAppThatIsSlowAndDeclinesDoesNotFailTheSender() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        try await Self.register(fixture, mode: "decline-slowly")
        let (receiver, port) = try await fixture.startReceiver(["--to", Self.viewer, "--pin", "12345678"])
        let file = try fixture.file("photo.raw", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 3) }))
        let sent = try await fixture.nearby(["send", file, "--to-device", "127.0.0.1:\(port)", "--pin", "12345678"])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)\n\(receiver.errors)")
        let landed = fixture.inbox(Self.viewer).appendingPathComponent("photo.raw").path
        #expect(NearbyFixture.sha256(landed) == NearbyFixture.sha256(file))
        let declined = "\(Self.viewer) declined to open \(landed); the file stays in its Inbox (dropped by"
        for _ in 0..<1000 where !fixture.courierd.errors.contains(declined) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(fixture.courierd.errors.contains(declined), "\(fixture.courierd.errors)")
        #expect(receiver.errors.contains("\"photo.raw\" → \(landed)"), "\(receiver.errors)")
    }

    /// The viewer's manifest (the app script in `mode`), registered with the fixture's broker.
    static func register(_ fixture: NearbyFixture, mode: String = "accept") async throws {
        let script = PythonPeers.path("nearby_viewer_app.py")
        let manifest: [String: Any] = [
            "CFBundleIdentifier": Self.viewer, "CFBundleName": "Viewer", "CourierLaunchArguments": ["/usr/bin/python3", script, mode],
            "CFBundleDocumentTypes": [["CFBundleTypeName": "Anything", "LSItemContentTypes": ["public.data"], "CFBundleTypeRole": "Viewer"]],
        ]
        try PropertyListSerialization.data(fromPropertyList: manifest, format: .xml, options: 0)
            .write(to: fixture.root.appendingPathComponent("manifests/\(Self.viewer).plist"))
        try await fixture.waitForBroker()
        var registered = false
        for _ in 0..<1000 where !registered {
            registered = ((try? await fixture.client.listApplications()) ?? []).contains(where: { $0["bundle-id"]?.stringValue == Self.viewer })
            if !registered { try await Task.sleep(for: .milliseconds(20)) }
        }
        try #require(registered, "the broker did not pick up \(Self.viewer)'s manifest from its watched folder")
    }

    @Test func theAnnotationNamesTheNearbyDeviceWithItsVerifiedFingerprint() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        try await Self.register(fixture)
        let (_, port) = try await fixture.startReceiver(["--to", Self.viewer, "--pin", "1234"])
        let file = try fixture.file("photo.raw", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0) }))
        let sent = try await fixture.nearby(["send", file, "--to-device", "127.0.0.1:\(port)", "--pin", "1234"])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        let listed = try await fixture.nearby(["list", "--json"])
        let ours = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])["fingerprint"] as? String

        let record = fixture.root.appendingPathComponent("data/courier/containers/\(Self.viewer)/opened.json")
        for _ in 0..<250 where !FileManager.default.fileExists(atPath: record.path) { try await Task.sleep(for: .milliseconds(20)) }
        let opened = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: record)) as? [String: Any])
        #expect((opened["url"] as? String)?.hasSuffix("/Documents/Inbox/photo.raw") == true, "\(opened)")
        let device = try #require((opened["annotation"] as? [String: Any])?["nearby-device"] as? [String: Any], "\(opened)")
        #expect(device["fingerprint"] as? String == ours)
        // courier nearby send presents its certificate: the receiver proved the fingerprint.
        #expect(device["fingerprint-verified"] as? Bool == true, "\(device)")
        #expect(device["admission"] as? String == "pin")
        #expect(device["address"] as? String == "127.0.0.1")
        #expect((device["alias"] as? String)?.hasPrefix("Courier on ") == true, "\(device)")
    }
}
