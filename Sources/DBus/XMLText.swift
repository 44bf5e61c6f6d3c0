/// XML's escaping of character data and attribute values: `&`, `<`, `>`, `"` and `'` as the five
/// predefined entities, everything else as it is. Introspection XML is written with it, and so is
/// a desktop notification's body (its markup is a subset of XML, read by an XML parser).
public enum XMLText {
    public static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if let entity = entities[character] { out += entity } else { out.append(character) }
        }
        return out
    }

    private static let entities: [Character: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&apos;"]
}
