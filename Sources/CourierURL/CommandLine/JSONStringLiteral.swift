/// A JSON string literal for `value` (RFC 8259: `"` and `\` escaped, control characters as `\n`,
/// `\t`, … or `\u00XX`), for tools that print JSON field by field in a fixed order (Foundation's
/// `JSONSerialization` reorders keys or escapes `/`).
public func jsonStringLiteral(_ value: String) -> String {
    var out = "\""
    for scalar in value.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
