import CourierTypes
import Foundation

/// A direct parser for XML property lists (Apple's plist DTD) into ``PropertyListValue``.
///
/// Why not only Foundation: on Linux, `PropertyListSerialization` plus bridging its `Any` result
/// costs a few hundred microseconds for a typical Info.plist — seconds for 10,000 manifests — while
/// this byte-level parser needs a small fraction of that. It accepts exactly the plist DTD's
/// elements (`dict`, `key`, `array`, `string`, `integer`, `real`, `true`, `false`, `date`, `data`),
/// comments, processing instructions, the DOCTYPE, CDATA sections and the XML character entities.
/// Anything else is an error with its line; the loader then asks Foundation (other encodings,
/// binary plists) before it reports the file as not a property list.
struct XMLPropertyListParser {
    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "line \(line): \(message)" }
    }

    /// Valid for the duration of ``parse(_:)`` (the caller's buffer).
    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0

    /// Nesting limit: a manifest is a few levels deep; this stops hostile input from exhausting the stack.
    private static let maximumDepth = 128

    static func parse(_ bytes: [UInt8]) throws(Failure) -> PropertyListValue {
        let result: Result<PropertyListValue, Failure> = bytes.withUnsafeBufferPointer { buffer in
            var parser = XMLPropertyListParser(bytes: buffer)
            do throws(Failure) {
                return .success(try parser.document())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private enum Token {
        static let cdataOpen = Array("<![CDATA[".utf8)
        static let cdataClose = Array("]]>".utf8)
        static let commentOpen = Array("<!--".utf8)
        static let commentClose = Array("-->".utf8)
        static let piClose = Array("?>".utf8)
        static let doctype = Array("<!DOCTYPE".utf8)
    }

    private func fail(_ message: String) -> Failure {
        var line = 1
        for b in bytes[..<min(i, bytes.count)] where b == 0x0A { line += 1 }
        return Failure(line: line, message: message)
    }

    // MARK: - Structure

    private mutating func document() throws(Failure) -> PropertyListValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        try skipMisc()
        guard let tag = try openTag(), tag.name == "plist" else { throw fail("expected <plist>") }
        let value: PropertyListValue
        if tag.selfClosing {
            throw fail("<plist/> holds no value")
        }
        try skipMisc()
        value = try self.value(depth: 0)
        try skipMisc()
        try closeTag("plist")
        try skipMisc()
        guard i == bytes.count else { throw fail("unexpected content after </plist>") }
        return value
    }

    private mutating func value(depth: Int) throws(Failure) -> PropertyListValue {
        guard depth < Self.maximumDepth else { throw fail("nested deeper than \(Self.maximumDepth) levels") }
        guard let tag = try openTag() else { throw fail("expected a value element") }
        switch tag.name {
        case "dict":
            var dict: [String: PropertyListValue] = [:]
            if tag.selfClosing { return .dictionary(dict) }
            while true {
                try skipMisc()
                if try atCloseTag("dict") { break }
                guard let keyTag = try openTag(), keyTag.name == "key" else { throw fail("expected <key> in <dict>") }
                let key = keyTag.selfClosing ? "" : try text(until: "key")
                try skipMisc()
                dict[key] = try self.value(depth: depth + 1)
            }
            return .dictionary(dict)
        case "array":
            var array: [PropertyListValue] = []
            if tag.selfClosing { return .array(array) }
            while true {
                try skipMisc()
                if try atCloseTag("array") { break }
                array.append(try self.value(depth: depth + 1))
            }
            return .array(array)
        case "string":
            return .string(tag.selfClosing ? "" : try text(until: "string"))
        case "true", "false":
            if !tag.selfClosing { try skipMisc(); try closeTag(tag.name) }
            return .boolean(tag.name == "true")
        case "integer":
            let t = tag.selfClosing ? "" : try text(until: "integer").trimmingCharacters(in: .whitespacesAndNewlines)
            if let v = Int(t) { return .integer(v) }
            if t.hasPrefix("0x") || t.hasPrefix("0X"), let v = Int(t.dropFirst(2), radix: 16) { return .integer(v) }
            throw fail("'\(t)' is not an integer")
        case "real":
            let t = tag.selfClosing ? "" : try text(until: "real").trimmingCharacters(in: .whitespacesAndNewlines)
            guard let v = Double(t) else { throw fail("'\(t)' is not a real number") }
            return .real(v)
        case "date":
            let t = tag.selfClosing ? "" : try text(until: "date").trimmingCharacters(in: .whitespacesAndNewlines)
            guard let d = Self.date(t) else { throw fail("'\(t)' is not a date (yyyy-MM-ddTHH:mm:ssZ)") }
            return .date(d)
        case "data":
            let t = tag.selfClosing ? "" : try text(until: "data")
            guard let d = Data(base64Encoded: t, options: .ignoreUnknownCharacters) else { throw fail("<data> is not base64") }
            return .data(d)
        default:
            throw fail("<\(tag.name)> is not a property-list element")
        }
    }

    // MARK: - Lexing

    private struct Tag {
        var name: String
        var selfClosing: Bool
    }

    /// Skips white space, comments, processing instructions and the DOCTYPE.
    private mutating func skipMisc() throws(Failure) {
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { i += 1; continue }
            if b != UInt8(ascii: "<") || i + 1 >= bytes.count { return }
            let next = bytes[i + 1]
            if next == UInt8(ascii: "?") {
                try skip(past: Token.piClose)
            } else if next == UInt8(ascii: "!") {
                if matches(Token.commentOpen) { try skip(past: Token.commentClose) } else if matches(Token.doctype) { try skipDoctype() } else { return }
            } else {
                return
            }
        }
    }

    private func matches(_ u: [UInt8]) -> Bool {
        guard i + u.count <= bytes.count else { return false }
        for k in 0..<u.count where bytes[i + k] != u[k] { return false }
        return true
    }

    private mutating func skip(past terminator: [UInt8]) throws(Failure) {
        while i + terminator.count <= bytes.count {
            if matches(terminator) {
                i += terminator.count
                return
            }
            i += 1
        }
        throw fail("unterminated markup")
    }

    private mutating func skipDoctype() throws(Failure) {
        var depth = 0
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            if b == UInt8(ascii: "[") { depth += 1 } else if b == UInt8(ascii: "]") { depth -= 1 } else if b == UInt8(ascii: ">") && depth <= 0 { return }
        }
        throw fail("unterminated DOCTYPE")
    }

    /// Reads `<name attr="…">` or `<name/>`; nil (position unchanged) when the next thing is not an opening tag.
    private mutating func openTag() throws(Failure) -> Tag? {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "<"), i + 1 < bytes.count,
              bytes[i + 1] != UInt8(ascii: "/"), bytes[i + 1] != UInt8(ascii: "!"), bytes[i + 1] != UInt8(ascii: "?")
        else { return nil }
        var j = i + 1
        let start = j
        while j < bytes.count, Self.isNameByte(bytes[j]) { j += 1 }
        guard j > start else { throw fail("malformed tag") }
        let name = String(decoding: bytes[start..<j], as: UTF8.self)
        // Attributes (only <plist version="1.0"> has any): skip to '>' honouring quotes.
        var quote: UInt8 = 0
        while j < bytes.count {
            let b = bytes[j]
            if quote != 0 {
                if b == quote { quote = 0 }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: ">") {
                let selfClosing = bytes[j - 1] == UInt8(ascii: "/")
                i = j + 1
                return Tag(name: name, selfClosing: selfClosing)
            }
            j += 1
        }
        throw fail("unterminated <\(name)>")
    }

    private mutating func atCloseTag(_ name: String) throws(Failure) -> Bool {
        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "<"), bytes[i + 1] == UInt8(ascii: "/") else { return false }
        try closeTag(name)
        return true
    }

    private mutating func closeTag(_ name: String) throws(Failure) {
        var j = i + 2
        var ok = i + 1 < bytes.count && bytes[i] == UInt8(ascii: "<") && bytes[i + 1] == UInt8(ascii: "/")
        if ok {
            for b in name.utf8 {
                guard j < bytes.count, bytes[j] == b else { ok = false; break }
                j += 1
            }
        }
        guard ok else { throw fail("expected </\(name)>") }
        while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A || bytes[j] == 0x0D { j += 1 }
        guard j < bytes.count, bytes[j] == UInt8(ascii: ">") else { throw fail("expected </\(name)>") }
        i = j + 1
    }

    /// Character data up to `</name>`, with entities and CDATA decoded; strict UTF-8.
    private mutating func text(until name: String) throws(Failure) -> String {
        let start = i
        // Fast path: plain text straight up to the closing tag, no copy before the String.
        while i < bytes.count, bytes[i] != UInt8(ascii: "<"), bytes[i] != UInt8(ascii: "&") { i += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "<"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") {
            let end = i
            try closeTag(name)
            guard let s = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) else { throw fail("text is not valid UTF-8") }
            return s
        }
        var out = Array(bytes[start..<i])
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "<") {
                if matches(Token.cdataOpen) {
                    i += Token.cdataOpen.count
                    let contentStart = i
                    try skip(past: Token.cdataClose)
                    out.append(contentsOf: bytes[contentStart..<(i - Token.cdataClose.count)])
                    continue
                }
                if matches(Token.commentOpen) {
                    try skip(past: Token.commentClose)
                    continue
                }
                try closeTag(name)
                guard let s = String(validating: out, as: UTF8.self) else { throw fail("text is not valid UTF-8") }
                return s
            }
            if b == UInt8(ascii: "&") {
                try entity(into: &out)
                continue
            }
            out.append(b)
            i += 1
        }
        throw fail("unterminated <\(name)>")
    }

    private mutating func entity(into out: inout [UInt8]) throws(Failure) {
        guard let semi = bytes[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { throw fail("malformed entity") }
        let name = String(decoding: bytes[(i + 1)..<semi], as: UTF8.self)
        i = semi + 1
        switch name {
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "amp": out.append(UInt8(ascii: "&"))
        case "quot": out.append(UInt8(ascii: "\""))
        case "apos": out.append(UInt8(ascii: "'"))
        default:
            var scalarValue: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") { scalarValue = UInt32(name.dropFirst(2), radix: 16) } else if name.hasPrefix("#") { scalarValue = UInt32(name.dropFirst()) }
            guard let v = scalarValue, let scalar = Unicode.Scalar(v) else { throw fail("unknown entity &\(name);") }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b == UInt8(ascii: ".")
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` (UTC), as plists write dates.
    static func date(_ s: String) -> Date? {
        let u = Array(s.utf8)
        guard u.count == 20, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-"), u[10] == UInt8(ascii: "T"),
              u[13] == UInt8(ascii: ":"), u[16] == UInt8(ascii: ":"), u[19] == UInt8(ascii: "Z") else { return nil }
        func n(_ r: Range<Int>) -> Int? { Int(String(decoding: u[r], as: UTF8.self)) }
        guard let y = n(0..<4), let mo = n(5..<7), let d = n(8..<10), let h = n(11..<13), let mi = n(14..<16), let sec = n(17..<19) else { return nil }
        var c = DateComponents()
        (c.year, c.month, c.day, c.hour, c.minute, c.second) = (y, mo, d, h, mi, sec)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: c)
    }
}
