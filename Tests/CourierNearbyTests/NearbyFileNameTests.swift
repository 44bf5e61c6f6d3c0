@testable import CourierNearby
import Testing

@Suite("NearbyFileName: the names a sender may announce")
struct NearbyFileNameTests {
    @Test(arguments: ["report.pdf", "Ünïcode café.txt", "a", "no extension", ".hidden-is-sanitised-later"])
    func ordinaryNamesPass(_ name: String) throws {
        #expect(try NearbyFileName.validate(name) == name)
    }

    @Test(arguments: [
        ("../../.bashrc", "is a path"), ("folder/file.txt", "is a path"), ("/etc/passwd", "is a path"),
        ("..\\windows.ini", "is a path"), ("a\u{0}b.txt", "NUL"), ("line\nbreak.txt", "control"),
        ("..", "names a folder"), (".", "names a folder"), ("", "empty"), ("   ", "empty"),
        ("CON", "device"), ("nul.txt", "device"), ("Com1.log", "device"), ("LPT9", "device"),
    ])
    func hostileNamesAreRefusedWithTheReason(_ name: String, _ reason: String) {
        #expect(throws: NearbyError.self) { try NearbyFileName.validate(name) }
        do {
            try NearbyFileName.validate(name)
        } catch {
            #expect(error.status == 400)
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test func tenKibibytesOfTextIsRefusedNamingTheLimit() {
        let long = String(repeating: "x", count: 10 << 10) + ".txt"
        do {
            try NearbyFileName.validate(long)
            Issue.record("a 10 KiB name was accepted")
        } catch {
            #expect(error.message.contains("\(long.utf8.count) bytes long"))
            #expect(error.message.contains("255"))
            #expect(error.message.count < 300, "the message quotes a short prefix, not the whole name")
        }
    }
}
