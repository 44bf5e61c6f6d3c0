/// URL scheme names: the one syntax check, for manifests, the registry and the desktop edge.
public enum URLScheme {
    /// RFC 3986: `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`, ASCII only, at most 255 bytes.
    public static func isValid(_ scheme: String) -> Bool {
        let bytes = Array(scheme.utf8)
        guard let first = bytes.first, isAlpha(first), bytes.count <= 255 else { return false }
        return bytes.dropFirst().allSatisfy { isAlpha($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    private static func isAlpha(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
}
