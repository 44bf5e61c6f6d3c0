/// The `Exec` key of a desktop entry, built from an argv so that launchers hand the URL over as
/// one argument, byte for byte, with no shell in between.
///
/// Desktop Entry Specification 1.5, "The Exec key": arguments are separated by spaces; an argument
/// holding a reserved character (space, tab, newline, `"`, `'`, `\`, `>`, `<`, `~`, `|`, `&`, `;`,
/// `$`, `*`, `?`, `#`, `(`, `)`, backtick) is double-quoted, and inside the quotes `"`, backtick,
/// `$` and `\` are backslash-escaped; a literal `%` is written `%%`; the field code (`%u`) stands
/// alone, never inside quotes. The general string escapes (`\\`, `\n`, `\t`, `\r`) are applied on
/// top of that when the entry is written (``DesktopEntry``), which is why a backslash in a quoted
/// argument ends up as four.
///
/// The URL itself never appears here: the launcher substitutes `%u`, and both GLib and xdg-utils
/// pass it on as a single argv element. Putting `--` before `%u` means a URL can never be read as
/// an option by the command.
public struct DesktopExec: Sendable, Equatable {
    /// The command and its fixed arguments, e.g. `["/usr/bin/courier", "open", "--desktop-entry"]`.
    public let command: [String]

    /// - Throws: ``DesktopIntegrationError/relativeExecutable(_:)`` when the program is not an
    ///   absolute path (a desktop entry must not depend on the launcher's `PATH`).
    public init(command: [String]) throws(DesktopIntegrationError) {
        guard let program = command.first, program.hasPrefix("/") else {
            throw .relativeExecutable(command.first ?? "")
        }
        self.command = command
    }

    /// The value of `Exec` before the general string escapes: the quoted command, `--`, `%u`.
    public var unescapedValue: String {
        (command.map(Self.quote) + ["--", "%u"]).joined(separator: " ")
    }

    /// Whether xdg-utils' generic `xdg-open` (1.1.3, which splits `Exec` on blanks and does not
    /// understand quotes) runs this command as written: no argument needs quoting.
    public var isSafeForXDGOpen: Bool {
        command.allSatisfy { !$0.isEmpty && !$0.unicodeScalars.contains(where: Self.reserved.contains) && !$0.contains("%") }
    }

    static let reserved: Set<Unicode.Scalar> = [
        " ", "\t", "\n", "\"", "'", "\\", ">", "<", "~", "|", "&", ";", "$", "*", "?", "#", "(", ")", "`",
    ]

    /// Quotes one argument per the Exec rules (and doubles `%`).
    static func quote(_ argument: String) -> String {
        let percentEscaped = argument.replacingEvery("%", with: "%%")
        let needsQuotes = argument.isEmpty || argument.unicodeScalars.contains(where: reserved.contains)
        guard needsQuotes else { return percentEscaped }
        var quoted = "\""
        for character in percentEscaped.unicodeScalars {
            if character == "\"" || character == "`" || character == "$" || character == "\\" {
                quoted.unicodeScalars.append("\\")
            }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "\""
    }
}

extension String {
    /// `replacingOccurrences(of:with:)` without Foundation.
    func replacingEvery(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
