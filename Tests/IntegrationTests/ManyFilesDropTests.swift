import BusTestSupport
import Foundation
import Testing

/// A drop of more files than the bus lets one message carry (dbus-daemon: 16 descriptors; the
/// kernel: 253): `courier drop` sends them in batches, the broker makes one drop of them; past the
/// drop limit (256 files) nothing is sent; and no broker is ever started because of it.
@Suite("Drops of many files (bus)", .serialized)
struct ManyFilesDropTests {
    static func files(_ count: Int, in fixture: BrokerFixture, prefix: String) throws -> [String] {
        let folder = fixture.root.appendingPathComponent("many-\(prefix)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try (1...count).map { index in
            let path = folder.appendingPathComponent(String(format: "\(prefix)-%03d.txt", index)).path
            try Data("\(prefix) \(index)\n".utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    static func inboxCount(_ fixture: BrokerFixture) -> Int {
        let inbox = fixture.dataHome.appendingPathComponent("courier/containers/com.acme.todolist/Documents/Inbox").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []).count
    }

    @Test func aDropOfMoreFilesThanOneMessageCarriesArrivesWholeAndInOrder() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let files = try Self.files(40, in: fixture, prefix: "batch")
        let drop = try await fixture.run(Products.path("courier"), ["drop", "--to", "com.acme.todolist"] + files)
        #expect(drop.status == 0, "\(drop.error)")
        let placed = drop.output.split(separator: "\n").map { URL(fileURLWithPath: String($0)).lastPathComponent }
        #expect(placed == files.map { URL(fileURLWithPath: $0).lastPathComponent })
        #expect(Self.inboxCount(fixture) == 40)
        #expect(!drop.error.contains("courierd"), "\(drop.error)")
    }

    @Test func moreThanTheDropLimitIsRefusedBeforeAnythingIsSent() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let files = try Self.files(257, in: fixture, prefix: "over")
        let drop = try await fixture.run(Products.path("courier"), ["drop", "--to", "com.acme.todolist"] + files)
        #expect(drop.status == 11, "\(drop.error)")
        #expect(drop.error.contains("at most 256 files"), "\(drop.error)")
        #expect(!drop.error.contains("courierd"), "\(drop.error)")
        #expect(Self.inboxCount(fixture) == 0)
        #expect(fixture.launcher.count == 0)
        // 256 is within the limit.
        let whole = try await fixture.run(Products.path("courier"), ["drop", "--to", "com.acme.todolist"] + files.dropLast())
        #expect(whole.status == 0, "\(whole.error)")
        #expect(Self.inboxCount(fixture) == 256)
    }
}
