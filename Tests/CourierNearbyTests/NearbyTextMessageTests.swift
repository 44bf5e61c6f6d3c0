@testable import CourierNearby
import Testing

@Suite("NearbyTextMessage: which requests are messages, which messages are links, what is shown")
struct NearbyTextMessageTests {
    static func request(_ files: [NearbyFile]) -> PrepareUploadRequest {
        PrepareUploadRequest(info: NearbyDevice(alias: "peer", fingerprint: "ab"), files: Dictionary(uniqueKeysWithValues: files.map { ($0.id, $0) }))
    }

    @Test func oneTextFileWithAPreviewIsAMessageAndNothingElseIs() throws {
        let message = NearbyFile(id: "m", fileName: "m.txt", size: 2, fileType: "text/plain", preview: "hi")
        #expect(try NearbyTextMessage.carried(by: Self.request([message])) == NearbyTextMessage(text: "hi"))
        var v1 = message; v1.fileType = "text"
        #expect(try NearbyTextMessage.carried(by: Self.request([v1])) == NearbyTextMessage(text: "hi"))
        var noPreview = message; noPreview.preview = nil
        var image = message; image.fileType = "image/png"
        var other = message; other.id = "n"
        for files in [[noPreview], [image], [message, other]] {
            #expect(try NearbyTextMessage.carried(by: Self.request(files)) == nil, "\(files)")
        }
        var huge = message; huge.preview = String(repeating: "x", count: NearbyTextMessage.maximumBytes + 1)
        #expect(throws: NearbyError.self) { try NearbyTextMessage.carried(by: Self.request([huge])) }
    }

    @Test(arguments: [
        ("https://example.org/a?b#c", "https://example.org/a?b#c"), ("  todolist://x?y\n", "todolist://x?y"),
        ("mailto:someone@example.org", "mailto:someone@example.org"), ("x-courier+v1.2:opaque", "x-courier+v1.2:opaque"),
    ])
    func aTextThatIsOneURLIsALink(_ text: String, _ url: String) {
        #expect(NearbyTextMessage(text: text).url == url)
    }

    @Test(arguments: ["hello world", "see https://example.org", "https://a b", "1http://x", ":x", "abc:", "\u{202E}https://x",
                      "https://x\u{1B}[2J", "ünï:x", "https://x\nhttps://y"])
    func anythingElseIsAText(_ text: String) {
        #expect(NearbyTextMessage(text: text).url == nil, "\(text.debugDescription)")
    }

    @Test func whatIsShownIsEscapedAndATextIsCutButALinkNever() {
        #expect(NearbyTextMessage(text: "a\u{1B}[2J\nb\u{202E}").shown == #"a\u{001B}[2J\u{000A}b\u{202E}"#)
        let long = String(repeating: "é", count: NearbyTextMessage.shownCharacters + 7)
        #expect(NearbyTextMessage(text: long).shown == String(repeating: "é", count: NearbyTextMessage.shownCharacters) + "… (7 more characters)")
        let link = "https://example.org/" + String(repeating: "a", count: 1000)
        #expect(NearbyTextMessage(text: link).shown == link)
    }

    @Test func theAnnouncementIsWhatTheReferenceAppSends() {
        #expect(NearbyTextMessage.announcement(of: "hé", id: "i", api: .v2) == NearbyFile(
            id: "i", fileName: "i.txt", size: 3, fileType: "text/plain",
            sha256: "7dfbe0eab96510b11c9a2671d83019cd52953211294db5f917ffa0b7cc84f534", preview: "hé"))
        #expect(NearbyTextMessage.announcement(of: "hé", id: "i", api: .v1).fileType == "text")
    }
}
