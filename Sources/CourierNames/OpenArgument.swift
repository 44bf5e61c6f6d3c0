/// How `courier open` tells a URL from a file, in one place for the static front (which answers
/// URLs itself) and the full CLI (which also opens files): an argument that starts with a URL
/// scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`, RFC 3986) other than `file:` is a URL;
/// anything else — `list.txt`, `/tmp/a:b.txt`, `file:///tmp/list.txt` — names a file. A file whose
/// name itself looks like `scheme:…` is given as `./name`, as with macOS `open`.
public enum OpenArgument {
    /// The scheme an argument starts with, lowercased; nil when it has none.
    public static func scheme(of argument: String) -> String? {
        var scheme: [UInt8] = []
        for byte in argument.utf8 {
            if byte == UInt8(ascii: ":") { return scheme.isEmpty ? nil : String(decoding: scheme, as: UTF8.self) }
            let isAlpha = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isOther = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isAlpha || (!scheme.isEmpty && isOther) else { return nil }
            scheme.append(isAlpha ? byte | 0x20 : byte)
        }
        return nil
    }

    /// Whether `argument` is a URL to hand to `OpenURL` (not a file to drop).
    public static func isURL(_ argument: String) -> Bool {
        guard let scheme = scheme(of: argument) else { return false }
        return scheme != "file"
    }
}
