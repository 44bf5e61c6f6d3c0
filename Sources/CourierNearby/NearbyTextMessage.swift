import CourierInbox
import CourierNames
import Crypto
import Foundation

/// A LocalSend text message: a `prepare-upload` announcing one file of a text type whose `preview`
/// carries the text. The reference app shows it, answers 204 ("no file transfer needed") once its
/// user has seen it and 403 when they decline, and no upload follows; a receiver that knows no
/// messages answers 200 and takes the text as a file, so a sender uploads it then.
///
/// Courier's receiver always asks its user about a message, whoever sends it: a URL is opened
/// through the broker's router only on a yes, a text is printed on a yes (docs/nearby.md).
public struct NearbyTextMessage: Sendable, Equatable {
    /// The longest text taken, in UTF-8 bytes (a message is for a link or a note, not a document:
    /// that goes as a file).
    public static let maximumBytes = 64 * 1024
    /// How much of the text a prompt or a notification shows, in characters.
    public static let shownCharacters = 500
    /// The `fileType` a v2 sender announces; v1's file types name the kind alone ("text").
    static let mimeType = "text/plain"

    public let text: String

    public init(text: String) {
        self.text = text
    }

    /// The message `request` carries, nil when it is a file transfer; a 413 naming the limit when
    /// the text is longer than ``maximumBytes``.
    static func carried(by request: PrepareUploadRequest) throws(NearbyError) -> NearbyTextMessage? {
        guard request.files.count == 1, let file = request.files.values.first, let preview = file.preview,
              let type = file.fileType?.lowercased(), type == "text" || type.hasPrefix("text/") else { return nil }
        guard preview.utf8.count <= maximumBytes else {
            throw NearbyError(413, "the text message is \(ByteCount(Int64(preview.utf8.count))); a text message may be at most \(ByteCount(Int64(maximumBytes))): send a longer text as a file")
        }
        return NearbyTextMessage(text: preview)
    }

    /// The URL the message is, when it is one and nothing else: `SCHEME:` and at least one more
    /// character, no white space or unclean character inside (surrounding white space is dropped).
    /// Whether an app opens it is the broker's decision, by its own parser and router.
    public var url: String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let colon = trimmed.firstIndex(of: ":"), colon != trimmed.startIndex, trimmed.index(after: colon) != trimmed.endIndex,
              trimmed.utf8.count <= 8192, CleanText.isClean(trimmed),
              !trimmed.unicodeScalars.contains(where: { CharacterSet.whitespacesAndNewlines.contains($0) }) else { return nil }
        let scheme = trimmed[..<colon].unicodeScalars
        guard let first = scheme.first, first.isASCII, CharacterSet.letters.contains(first),
              scheme.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0)) }) else { return nil }
        return trimmed
    }

    /// What a person is shown: every control, line-break or bidirectional formatting character
    /// escaped (`\u{001B}`, `\u{000A}`, `\u{202E}`) as `CleanText` escapes them everywhere, so the
    /// text cannot move the cursor, fake a prompt or reorder itself; a text cut after
    /// ``shownCharacters`` characters, a link never (what is opened is all shown: at most 8 KiB).
    public var shown: String {
        let count = text.count
        guard count > Self.shownCharacters, url == nil else { return CleanText.escaped(text) }
        return CleanText.escaped(text.prefix(Self.shownCharacters)) + "… (\(count - Self.shownCharacters) more characters)"
    }

    /// The one file a sender announces for `text` (its id, a name the reference app would give).
    static func announcement(of text: String, id: String, api: NearbyProtocol.API) -> NearbyFile {
        let bytes = Array(text.utf8)
        return NearbyFile(id: id, fileName: "\(id).txt", size: Int64(bytes.count), fileType: api == .v1 ? "text" : mimeType,
                          sha256: SHA256.hash(data: bytes).hex, preview: text)
    }
}
