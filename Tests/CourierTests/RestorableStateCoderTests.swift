import Courier
import CourierNames
import Foundation
import Testing

/// The state archive's format: what one version writes, the next reads — or refuses, saying why.
@Suite("RestorableStateCoder")
struct RestorableStateCoderTests {
    struct Session: Codable, Equatable {
        var lastShown: String
        var filter: String?
    }

    @Test func anArchiveRoundTripsValuesBytesVersionAndTime() throws {
        var coder = RestorableStateCoder(bundleVersion: "1.2", savedAt: Date(timeIntervalSince1970: 1_700_000_000.25))
        try coder.encode(Session(lastShown: "Quarterly Report", filter: "today"), forKey: "session")
        coder.encode(bytes: [0, 1, 2, 255], forKey: "raw")
        let archive = try coder.archived(bundleID: "com.acme.todolist")
        let read = try RestorableStateCoder(archive: archive, bundleID: "com.acme.todolist")
        #expect(read == coder)
        #expect(read.bundleVersion == "1.2")
        #expect(read.savedAt == Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(try read.decode(Session.self, forKey: "session") == Session(lastShown: "Quarterly Report", filter: "today"))
        #expect(read.bytes(forKey: "raw") == [0, 1, 2, 255])
        #expect(try read.decode(Session.self, forKey: "missing") == nil)
        #expect(throws: CourierError.self) { try read.decode(Int.self, forKey: "session") }
    }

    @Test func aDamagedForeignOrFutureArchiveIsRefusedWithTheReason() throws {
        var coder = RestorableStateCoder(bundleVersion: "1")
        try coder.encode("x", forKey: "k")
        let archive = try coder.archived(bundleID: "com.acme.todolist")
        for cut in [0, 10, 20, archive.count - 1] {
            let error = #expect(throws: CourierError.self) { try RestorableStateCoder(archive: Array(archive.prefix(cut)), bundleID: "com.acme.todolist") }
            #expect(error?.message.contains("ignored") == true)
        }
        let foreign = #expect(throws: CourierError.self) { try RestorableStateCoder(archive: archive, bundleID: "com.evil.app") }
        #expect(foreign?.message.contains("belongs to com.acme.todolist") == true)
        var future = archive
        future[14] = 2   // the format field follows the 14-byte magic line
        let newer = #expect(throws: CourierError.self) { try RestorableStateCoder(archive: future, bundleID: "com.acme.todolist") }
        #expect(newer?.message.contains("format 2") == true)
    }
}
