/// What counts as clean text: the one rule for every string Courier takes from outside and shows to
/// a person or hands to an app — decoded URL components, app names from manifests, a nearby
/// sender's alias, file names a peer suggests, IRIs.
///
/// Unclean are the characters that can forge what a terminal or a notification shows, or that
/// break the bus: C0 controls (NUL, ESC, CR, LF, TAB, …), DEL, C1 controls (U+0080–U+009F), the line
/// and paragraph separators, and the bidirectional formatting characters (LRE, RLE, PDF, LRO, RLO,
/// LRI, RLI, FSI, PDI, LRM, RLM, ALM; RFC 3987 section 4.1 and Unicode's "Trojan Source" advice).
/// Everything else, letters of any script and emoji included, is clean.
///
/// Dependency-free, so that every layer (the static front included) applies the same rule.
public enum CleanText {
    /// Whether `scalar` is allowed in clean text.
    public static func isClean(_ scalar: Unicode.Scalar) -> Bool {
        !isControl(scalar) && !isBidirectionalFormatting(scalar)
    }

    /// C0, DEL, C1, and the line and paragraph separators (U+2028, U+2029).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }

    /// Characters that reorder how the text around them is displayed.
    public static func isBidirectionalFormatting(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    /// The first unclean character of `text`, with its offset in Unicode scalars (what a person
    /// counting characters sees), or `nil` when the text is clean.
    public static func firstUnclean(in text: some StringProtocol) -> Violation? {
        for (offset, scalar) in text.unicodeScalars.enumerated() where !isClean(scalar) {
            return Violation(scalar: scalar, offset: offset)
        }
        return nil
    }

    /// Whether every character of `text` is clean.
    public static func isClean(_ text: some StringProtocol) -> Bool { firstUnclean(in: text) == nil }

    /// `text` with every unclean character shown as a Swift-style escape (`\u{1B}`, `\u{202E}`), so
    /// that an error message can quote hostile text without the terminal acting on it.
    public static func escaped(_ text: some StringProtocol) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if isClean(scalar) { result.unicodeScalars.append(scalar) } else { result += Violation.escape(scalar) }
        }
        return result
    }

    /// An unclean character and where it stands.
    public struct Violation: Hashable, Sendable, CustomStringConvertible {
        public let scalar: Unicode.Scalar
        /// Offset in Unicode scalars from the start of the text.
        public let offset: Int

        public init(scalar: Unicode.Scalar, offset: Int) {
            self.scalar = scalar
            self.offset = offset
        }

        /// The character's escape and its kind: `\u{1B} (a control character)`.
        public var description: String {
            Self.escape(scalar) + (CleanText.isControl(scalar) ? " (a control character)" : " (a bidirectional formatting character)")
        }

        static func escape(_ scalar: Unicode.Scalar) -> String {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "\\u{" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "}"
        }
    }
}
