import CourierManifest
import Foundation
import Testing

/// `LaunchCommandRecording`: the copy `courier register` installs records the path, keeps every
/// other value, and fails with a reason rather than falling back to the original.
@Suite struct LaunchCommandRecordingTests {
    @Test func recordsThePathAndKeepsEveryOtherValue() throws {
        let xml = plist("""
            <key>CFBundleIdentifier</key><string>com.acme.notes</string>
            <key>CFBundleName</key><string>Notes &amp; &lt;Tasks&gt;</string>
            <key>CourierLaunchArguments</key><array><string>notes</string><string>--url</string></array>
            <key>Extra</key><dict><key>When</key><date>2024-02-29T12:30:00Z</date><key>Blob</key><data>AAEC</data>
              <key>Ratio</key><real>1.5</real><key>Count</key><integer>-7</integer><key>On</key><true/><key>Off</key><false/>
              <key>None</key><array/><key>Empty</key><dict/></dict>
            """)
        let recorded = try LaunchCommandRecording.recording("/opt/notes/bin/notes", in: Array(xml.utf8), path: "/m/notes.plist")
        let before = try #require(PropertyListSerialization.propertyList(from: Data(xml.utf8), format: nil) as? NSDictionary)
        let after = try #require(PropertyListSerialization.propertyList(from: Data(recorded), format: nil) as? [String: Any])
        #expect(after["CourierLaunchArguments"] as? [String] == ["/opt/notes/bin/notes", "--url"])
        var expected = before as? [String: Any] ?? [:]
        expected["CourierLaunchArguments"] = ["/opt/notes/bin/notes", "--url"]
        #expect(NSDictionary(dictionary: after).isEqual(to: expected))
        let loaded = ManifestLoader().decode(recorded, path: "/m/notes.plist")
        #expect(loaded.manifest?.launchCommand?.executable == .path("/opt/notes/bin/notes"))
    }

    @Test func aManifestWithoutALaunchCommandIsAFailureWithItsReason() {
        #expect(throws: LaunchCommandRecording.Failure.self) {
            try LaunchCommandRecording.recording("/bin/x", in: Array(appPlist("com.acme.notes").utf8), path: "/m/n.plist")
        }
        do {
            _ = try LaunchCommandRecording.recording("/bin/x", in: Array("not a plist".utf8), path: "/m/n.plist")
        } catch {
            #expect(error.reason.contains("not a property list"))
        }
    }
}
