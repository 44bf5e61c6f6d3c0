import Glibc

/// The content rules of the shared-mime-info database: the binary `magic` file that
/// `update-mime-database` writes (the format of the specification's "The magic files" section).
///
/// The file is `MIME-Magic\0\n` followed by sections, each `[priority:mime/type]\n` and its
/// matchlets, one a line: `[indent]>start-offset=value-length(2 bytes, big-endian)value[&mask]
/// [~word-size][+range-length]\n`. A matchlet with indent n is a child of the nearest preceding one
/// with indent n − 1; a matchlet matches when its value (under the mask) occurs at an offset in
/// `start-offset ..< start-offset + range-length` and, if it has children, one of them matches too.
/// A section matches when one of its top-level matchlets does. The sections are stored by priority,
/// highest first, and the first section that matches decides, as in GIO (`xdgmime`).
///
/// A section or line Courier cannot parse is dropped with the rest of its section (the
/// specification's rule for unknown extensions: ignore what cannot be understood), never guessed at.
struct MIMEMagic: Sendable {
    struct Matchlet: Sendable {
        var start: Int
        var range: Int
        var value: [UInt8]
        var mask: [UInt8]?
        var children: [Matchlet]
    }

    struct Rule: Sendable {
        var priority: Int
        var mimeType: String
        var matchlets: [Matchlet]
    }

    /// In the order they are tried.
    let rules: [Rule]
    /// Deeper nesting than any real database uses marks a section as unreadable (matching recurses
    /// once per level).
    static let maximumIndent = 32
    /// How many leading bytes any rule can look at (GIO reads at most 4096 of them).
    let extent: Int

    static let empty = MIMEMagic(rules: [], extent: 0)

    init(rules: [Rule], extent: Int) {
        self.rules = rules
        self.extent = extent
    }

    /// The first rule that matches `data`, with its priority.
    func match(_ data: UnsafeRawBufferPointer) -> (mimeType: String, priority: Int)? {
        for rule in rules where rule.matchlets.contains(where: { Self.matches($0, data) }) {
            return (rule.mimeType, rule.priority)
        }
        return nil
    }

    private static func matches(_ m: Matchlet, _ data: UnsafeRawBufferPointer) -> Bool {
        guard valueOccurs(m, data) else { return false }
        return m.children.isEmpty || m.children.contains { matches($0, data) }
    }

    private static func valueOccurs(_ m: Matchlet, _ data: UnsafeRawBufferPointer) -> Bool {
        let length = m.value.count
        guard let base = data.baseAddress else { return false }
        return m.value.withUnsafeBytes { value -> Bool in
            var offset = m.start
            while offset < m.start + m.range {
                if offset + length > data.count { return false }
                if let mask = m.mask {
                    var equal = true
                    for j in 0..<length where value[j] & mask[j] != data[offset + j] & mask[j] {
                        equal = false
                        break
                    }
                    if equal { return true }
                } else if memcmp(value.baseAddress!, base + offset, length) == 0 {
                    return true
                }
                offset += 1
            }
            return false
        }
    }

    /// Parses the bytes of a `magic` file; nil when it is not one.
    static func parse(_ bytes: [UInt8]) -> MIMEMagic? {
        let header = Array("MIME-Magic\0\n".utf8)
        guard bytes.starts(with: header) else { return nil }
        var parser = Parser(bytes: bytes, position: header.count)
        var rules: [Rule] = []
        var extent = 0
        while let (priority, mime) = parser.sectionHeader() {
            // (indent, matchlet) in file order; built into a tree once the section ends.
            var lines: [(Int, Matchlet)] = []
            var valid = true
            while parser.position < bytes.count, bytes[parser.position] != UInt8(ascii: "[") {
                guard let line = parser.matchlet(), line.0 <= maximumIndent else {
                    valid = false
                    parser.skipToNextSection()
                    break
                }
                extent = max(extent, line.1.start + line.1.range - 1 + line.1.value.count)
                lines.append(line)
            }
            if valid { rules.append(Rule(priority: priority, mimeType: mime, matchlets: tree(lines))) }
        }
        return MIMEMagic(rules: rules, extent: extent)
    }

    /// Nests matchlets by indent: each line is a child of the nearest earlier line one level up.
    private static func tree(_ lines: [(Int, Matchlet)]) -> [Matchlet] {
        var index = 0
        func level(_ indent: Int) -> [Matchlet] {
            var result: [Matchlet] = []
            while index < lines.count, lines[index].0 >= indent {
                if lines[index].0 > indent {
                    // A deeper line without a parent at this level: skip it (malformed).
                    index += 1
                    continue
                }
                var m = lines[index].1
                index += 1
                m.children = level(indent + 1)
                result.append(m)
            }
            return result
        }
        return level(0)
    }

    private struct Parser {
        let bytes: [UInt8]
        var position: Int

        /// The next `[priority:type]` header; sections whose header cannot be read are skipped.
        mutating func sectionHeader() -> (Int, String)? {
            while position < bytes.count, bytes[position] == UInt8(ascii: "[") {
                guard let close = bytes[position...].firstIndex(of: UInt8(ascii: "]")),
                      close + 1 < bytes.count, bytes[close + 1] == UInt8(ascii: "\n") else { return nil }
                let text = String(decoding: bytes[(position + 1)..<close], as: UTF8.self)
                position = close + 2
                let parts = text.split(separator: ":", maxSplits: 1)
                if parts.count == 2, let priority = Int(parts[0]) { return (priority, parts[1].lowercased()) }
                skipToNextSection()
            }
            return nil
        }

        mutating func number() -> Int? {
            var value = 0, digits = 0
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9"), digits < 9 {
                value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                position += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }

        mutating func expect(_ c: Character) -> Bool {
            guard position < bytes.count, bytes[position] == c.asciiValue! else { return false }
            position += 1
            return true
        }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard position + count <= bytes.count else { return nil }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }

        /// One `[indent]>offset=len value[&mask][~word][+range]\n` line.
        mutating func matchlet() -> (Int, Matchlet)? {
            let indent = number() ?? 0
            guard expect(">"), let start = number(), expect("="), let lengthBytes = take(2) else { return nil }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard var value = take(length) else { return nil }
            var mask: [UInt8]?
            if expect("&") {
                guard let m = take(length) else { return nil }
                mask = m
            }
            var wordSize = 1
            if expect("~") { wordSize = number() ?? 1 }
            var range = 1
            if expect("+") { range = max(number() ?? 1, 1) }
            // Unknown extensions up to the end of the line are ignored.
            while position < bytes.count, bytes[position] != UInt8(ascii: "\n") { position += 1 }
            guard expect("\n") else { return nil }
            // Values of word size 2 or 4 are stored big-endian; this host compares in its own order.
            if wordSize > 1, length % wordSize == 0, 1.littleEndian == 1 {
                value = Self.swapped(value, wordSize)
                mask = mask.map { Self.swapped($0, wordSize) }
            }
            return (indent, Matchlet(start: start, range: range, value: value, mask: mask, children: []))
        }

        static func swapped(_ bytes: [UInt8], _ word: Int) -> [UInt8] {
            var result = bytes
            for i in stride(from: 0, to: bytes.count, by: word) { result[i..<(i + word)].reverse() }
            return result
        }

        mutating func skipToNextSection() {
            // A section header starts a line; values may contain "\n[" too, but a line that fails to
            // parse leaves nothing better than the next plausible header.
            while position < bytes.count {
                if bytes[position] == UInt8(ascii: "\n"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "[") {
                    position += 1
                    return
                }
                position += 1
            }
        }
    }
}
