/// How the command-line tools (`courier parse`, `todolist decode`) tell a person that a URL was
/// refused: one line with the tool, what happened and the reason (which already says what to do),
/// then — when the URL is short printable ASCII and the offset is known — the URL and a caret under
/// the offending byte. They print it on standard error and exit with 65 (`EX_DATAERR`).
public struct RefusedURLReport: Sendable, Equatable, CustomStringConvertible {
    /// The exit status for a refused URL: `EX_DATAERR` from sysexits.h.
    public static let exitStatus: Int32 = 65

    /// The text to print on standard error, newline-terminated.
    public let description: String

    /// `offset` is the byte offset of the problem in `input`, when known.
    public init(program: String, headline: String, reason: String, input: String, offset: Int?) {
        var text = "\(program): \(headline): \(reason)\n"
        let bytes = Array(input.utf8)
        if let offset, bytes.count <= 160, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            text += "  \(input)\n  \(String(repeating: " ", count: min(max(offset, 0), bytes.count)))^\n"
        }
        description = text
    }
}
