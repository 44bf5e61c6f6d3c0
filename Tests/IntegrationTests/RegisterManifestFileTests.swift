import BusTestSupport
import Courier
import CourierTools
import DBus
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Registering by path must not be a way to learn about files the caller cannot read: the broker
/// reads a path itself, so `RegisterManifest` answers every failure alike; `RegisterManifestFile`
/// takes the caller's own descriptor and answers with the diagnostics. On either bus.
@Suite("RegisterManifestFile and path probing", .serialized)
struct RegisterManifestFileTests {
    @Test func registeringByPathAnswersMissingUnreadableDirectoryAndNonPlistAlike() async throws {
        let fixture = try await BrokerFixture()
        defer { fixture.tearDown() }
        let probes = fixture.root.appendingPathComponent("probes", isDirectory: true)
        try FileManager.default.createDirectory(at: probes.appendingPathComponent("folder.plist"), withIntermediateDirectories: true)
        try Data("just words".utf8).write(to: probes.appendingPathComponent("words.plist"))
        try BrokerFixture.ManifestWriter(folder: probes).write("com.acme.x", schemes: ["x"], arguments: ["/bin/true"])
        try FileManager.default.moveItem(at: probes.appendingPathComponent("com.acme.x.plist"), to: probes.appendingPathComponent("locked.plist"))
        chmod(probes.appendingPathComponent("locked.plist").path, 0)
        #expect(mkfifo(probes.appendingPathComponent("fifo.plist").path, 0o600) == 0)
        var answers: [String: String] = [:]
        for name in ["missing.plist", "folder.plist", "words.plist", "fifo.plist", "locked.plist"] where name != "locked.plist" || getuid() != 0 {
            let path = probes.appendingPathComponent(name).path
            let error = await #expect(throws: CourierError.self) { try await fixture.client.registerManifest(atPath: path) }
            #expect(error?.dbusName == "org.courier.Error.InvalidManifest")
            answers[name] = error?.message.replacingOccurrences(of: path, with: "PATH")
        }
        #expect(Set(answers.values).count == 1, "\(answers)")
        #expect(answers.values.first?.contains("answers these alike") == true)
        #expect(try await fixture.client.listApplications().isEmpty)
    }

    @Test func aDescriptorTheCallerOpenedIsRegisteredWithItsDiagnostics() async throws {
        let fixture = try await BrokerFixture()
        defer { fixture.tearDown() }
        let folder = fixture.root.appendingPathComponent("own", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let words = folder.appendingPathComponent("words.plist").path
        try Data("just words".utf8).write(to: URL(fileURLWithPath: words))
        let refused = await #expect(throws: CourierError.self) {
            try await fixture.client.registerManifest(file: UnixFD(taking: open(words, O_RDONLY | O_CLOEXEC)), path: words)
        }
        #expect(refused?.dbusName == "org.courier.Error.InvalidManifest")
        #expect(refused?.message.contains("not a property list") == true, "\(refused?.message ?? "")")

        try BrokerFixture.ManifestWriter(folder: folder).write("com.acme.echo", schemes: ["echo"], arguments: ["/bin/true"])
        let good = folder.appendingPathComponent("com.acme.echo.plist").path
        // A path that names another file than the descriptor's is refused before anything is read.
        let mismatch = await #expect(throws: CourierError.self) {
            try await fixture.client.registerManifest(file: UnixFD(taking: open(good, O_RDONLY | O_CLOEXEC)), path: words)
        }
        #expect(mismatch?.dbusName == "org.courier.Error.InvalidArguments", "\(String(describing: mismatch))")
        let missingPath = await #expect(throws: CourierError.self) {
            try await fixture.client.registerManifest(file: UnixFD(taking: open(good, O_RDONLY | O_CLOEXEC)), path: folder.appendingPathComponent("nothing.plist").path)
        }
        #expect(mismatch?.message.replacingOccurrences(of: words, with: "P") == missingPath?.message.replacingOccurrences(of: folder.appendingPathComponent("nothing.plist").path, with: "P"))

        let bundleID = try await fixture.client.registerManifest(file: UnixFD(taking: open(good, O_RDONLY | O_CLOEXEC)), path: good)
        #expect(bundleID == "com.acme.echo")
        let listed = try await fixture.client.listApplications()
        #expect(listed.first?["path"]?.stringValue == good)
    }
}
