import CourierNames
import Foundation

/// A file name that is safe to create in an Inbox, made from a name the sender suggested.
///
/// The suggestion is untrusted: it may carry a path (`../../etc/passwd`), control characters, bytes
/// that are not UTF-8, a leading `.` (hidden) or `-` (taken for an option by shell tools), or be
/// longer than a file name may be. The result:
/// - is the last path component of the suggestion (like a browser saving a download);
/// - is valid UTF-8 (invalid sequences become U+FFFD) in Unicode NFC;
/// - has no control characters (each becomes `_`) and no bidirectional overrides (removed, so
///   `cod\u{202E}fdp.exe` cannot pose as a PDF);
/// - starts with neither `.` nor `-`, nor with or after white space;
/// - is never empty (`Untitled`), never `.` or `..`, and is at most 255 bytes with its number and
///   extension (the stem is shortened, on a character boundary).
///
/// Uniqueness is iOS's: `Report.pdf`, then `Report-1.pdf`, `Report-2.pdf`, … (`candidate(_:)`).
public struct InboxFileName: Sendable, Hashable, CustomStringConvertible {
    /// The name without its extension.
    public let stem: String
    /// The extension without its dot (empty when there is none).
    public let pathExtension: String

    /// The longest name a Linux file system takes, in bytes.
    public static let maximumBytes = 255
    /// The name used when nothing usable is left of a suggestion.
    public static let fallbackStem = "Untitled"

    /// Sanitizes a suggestion given as raw bytes (not necessarily UTF-8).
    public init(suggested bytes: some Sequence<UInt8>) {
        self.init(suggested: String(decoding: Array(bytes), as: UTF8.self))
    }

    /// Sanitizes a suggestion.
    public init(suggested: String) {
        // The last non-empty path component.
        let component = suggested.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView()
        for scalar in component.precomposedStringWithCanonicalMapping.unicodeScalars {
            if CleanText.isBidirectionalFormatting(scalar) { continue }
            if CleanText.isControl(scalar) {
                scalars.append("_")
            } else {
                scalars.append(scalar)
            }
        }
        var name = Substring(String(scalars))
        // No leading dots, dashes or white space, no trailing white space.
        while let first = name.unicodeScalars.first,
              first == "." || first == "-" || first.properties.isWhitespace {
            name = name.dropFirst()
        }
        while let last = name.unicodeScalars.last, last.properties.isWhitespace {
            name = name.dropLast()
        }
        let (stem, pathExtension) = Self.splitExtension(String(name))
        self.stem = stem.isEmpty ? Self.fallbackStem : stem
        self.pathExtension = pathExtension
    }

    /// The name itself: `candidate(0)`.
    public var name: String { candidate(0) }
    public var description: String { name }

    /// The `number`th choice of name: `Report.pdf` for 0, `Report-1.pdf` for 1, …, shortened to fit
    /// in `maximumBytes`.
    public func candidate(_ number: Int) -> String {
        let suffix = number == 0 ? "" : "-\(number)"
        let dottedExtension = pathExtension.isEmpty ? "" : "." + pathExtension
        let budget = Self.maximumBytes - suffix.utf8.count - dottedExtension.utf8.count
        var shortened = Self.prefix(of: stem, fittingIn: budget)
        while let last = shortened.unicodeScalars.last, last.properties.isWhitespace || last == "." {
            shortened.unicodeScalars.removeLast()
        }
        if shortened.isEmpty { shortened = Self.fallbackStem }
        return shortened + suffix + dottedExtension
    }

    // MARK: Rules

    /// Splits `name` at its last dot when what follows looks like an extension: 1 to 32 letters,
    /// digits, `_`, `+`, `-` or `~`. Otherwise the whole name is the stem.
    static func splitExtension(_ name: String) -> (stem: String, pathExtension: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        let pathExtension = name[name.index(after: dot)...]
        let looksLikeExtension = (1...32).contains(pathExtension.utf8.count) && pathExtension.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || $0.properties.numericType != nil || "_+-~".unicodeScalars.contains($0)
        }
        guard looksLikeExtension else { return (name, "") }
        var stem = String(name[..<dot])
        while let last = stem.unicodeScalars.last, last.properties.isWhitespace {
            stem.unicodeScalars.removeLast()
        }
        return (stem, String(pathExtension))
    }

    /// The longest prefix of `text` of at most `budget` UTF-8 bytes, cut between characters (or
    /// between scalars when a single character is longer than the budget).
    static func prefix(of text: String, fittingIn budget: Int) -> String {
        guard text.utf8.count > budget else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > budget { break }
            result.append(character)
            used += size
        }
        if !result.isEmpty { return result }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let size = String(scalar).utf8.count
            if used + size > budget { break }
            scalars.append(scalar)
            used += size
        }
        return String(scalars)
    }
}
