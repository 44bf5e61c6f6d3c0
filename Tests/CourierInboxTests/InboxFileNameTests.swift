import Testing
import CourierInbox

@Suite struct InboxFileNameTests {
    @Test(arguments: [
        ("../../etc/passwd", "passwd"),
        ("/", "Untitled"),
        ("", "Untitled"),
        ("..", "Untitled"),
        ("a/b/Report.pdf", "Report.pdf"),
        ("dir/", "dir"),
        ("bad\u{0}name.txt", "bad_name.txt"),
        ("two\nlines.txt", "two_lines.txt"),
        ("tab\there\r.txt", "tab_here_.txt"),
        (".hidden", "hidden"),
        ("-rf", "rf"),
        ("--help", "help"),
        (". -.x", "x"),
        ("  spaced  .txt", "spaced.txt"),
        ("invoice\u{202E}fdp.exe", "invoicefdp.exe"),
        ("Cafe\u{301}.txt", "Caf\u{E9}.txt"),
        ("archive.tar.gz", "archive.tar.gz"),
    ])
    func hostileSuggestionsBecomeSafeNames(suggested: String, expected: String) {
        #expect(InboxFileName(suggested: suggested).name == expected)
    }

    @Test func invalidUTF8IsReplaced() {
        let name = InboxFileName(suggested: [0x66, 0xFF, 0xC3, 0x2E, 0x74, 0x78, 0x74]).name
        #expect(name == "f\u{FFFD}\u{FFFD}.txt")
    }

    @Test func longNamesAreCutTo255BytesKeepingTheExtension() {
        let name = InboxFileName(suggested: String(repeating: "a", count: 300) + ".pdf")
        #expect(name.name.utf8.count == 255)
        #expect(name.name.hasSuffix("aaa.pdf"))
        let numbered = name.candidate(12)
        #expect(numbered.utf8.count == 255)
        #expect(numbered.hasSuffix("a-12.pdf"))
    }

    @Test func longNamesAreCutBetweenCharacters() {
        let name = InboxFileName(suggested: String(repeating: "é", count: 200) + ".txt").name  // 2 bytes each
        #expect(name.utf8.count <= 255)
        #expect(name.hasSuffix(".txt"))
        #expect(!name.contains("\u{FFFD}"))
    }

    @Test func numberingFollowsIOS() {
        let name = InboxFileName(suggested: "Report.pdf")
        #expect([0, 1, 2].map(name.candidate) == ["Report.pdf", "Report-1.pdf", "Report-2.pdf"])
        #expect(InboxFileName(suggested: "README").candidate(3) == "README-3")
    }

    @Test func aDotInsideAPhraseIsNotAnExtension() {
        let name = InboxFileName(suggested: "Minutes v1.2 final")
        #expect(name.pathExtension == "")
        #expect(name.candidate(1) == "Minutes v1.2 final-1")
    }

    @Test func nameNeverContainsSlashOrControlOrLeadingDotOrDash() {
        let hostile: [[UInt8]] = [
            Array("../../etc/passwd".utf8), [0x2F], [0x2E, 0x2E], [0x00], [0x0A, 0x2E, 0x2E, 0x2F, 0x78],
            [0xFF, 0xFE], Array(repeating: 0x2D, count: 300), Array("\u{7F}\u{85}x".utf8),
        ]
        for bytes in hostile {
            let name = InboxFileName(suggested: bytes).name
            #expect(!name.isEmpty)
            #expect(!name.contains("/"))
            #expect(!name.hasPrefix(".") && !name.hasPrefix("-"))
            #expect(!name.unicodeScalars.contains { $0.properties.generalCategory == .control })
            #expect(name.utf8.count <= 255)
        }
    }
}
