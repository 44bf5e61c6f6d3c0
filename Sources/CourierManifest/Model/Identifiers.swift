import CourierNames

import CourierTypes
/// Syntax checks for the identifiers a manifest declares (bundle identifiers: `BundleIdentifier`).
public enum Identifiers {
    /// RFC 3986 scheme (`URLScheme.isValid`, the one check).
    public static func isValidScheme(_ s: String) -> Bool { URLScheme.isValid(s) }

    /// A uniform type identifier: dot-separated, ASCII letters, digits, `-`, `_` and `.`; no
    /// empty elements.
    public static func isValidTypeIdentifier(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return elements.allSatisfy { element in
            !element.isEmpty && element.allSatisfy { isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        }
    }

    /// The first Xcode build-setting reference in `s` (`$(PRODUCT_BUNDLE_IDENTIFIER)`, `${NAME}`), if any.
    public static func unresolvedBuildVariable(in s: String) -> String? {
        var utf8 = Array(s.utf8)[...]
        while let dollar = utf8.firstIndex(of: UInt8(ascii: "$")) {
            let next = dollar + 1
            guard next < utf8.endIndex else { return nil }
            let open = utf8[next]
            if open == UInt8(ascii: "(") || open == UInt8(ascii: "{") {
                let close = open == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: "}")
                if let end = utf8[next...].firstIndex(of: close) {
                    return String(decoding: utf8[dollar...end], as: UTF8.self)
                }
            }
            utf8 = utf8[next...]
        }
        return nil
    }

    /// `s` without leading and trailing white space (blanks, tabs, newlines, no-break spaces): what
    /// a hand-edited plist often carries by accident around an identifier.
    public static func trimmingWhitespace(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }

    private static func isAlpha(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
}
