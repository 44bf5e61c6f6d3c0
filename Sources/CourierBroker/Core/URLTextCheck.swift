import CourierNames
import CourierURL

/// What an app routed by Courier may receive in a URL: the percent-decoded text of every component
/// is clean (`CleanText`: no NUL, ESC, CR, LF or other C0/C1 control, no DEL, no line separator, no
/// bidirectional formatting character), unless the app's URL format allows it
/// (`AllowsControlCharacters`, docs/url-format.md). The broker checks it before launching anything,
/// so that `todolist://host?a%00b` or `?%1b[31m` never reaches an app that would store it and print
/// it later. URLs handed to the desktop are not decoded (a `mailto:` body may carry `%0D%0A`).
enum URLTextCheck {
    /// An unclean character found in a decoded component.
    struct Finding: Sendable, Hashable {
        let component: URIComponent
        /// The character and its kind.
        let violation: CleanText.Violation
        /// The UTF-8 byte offset in the URL where the character starts (its `%XX` escape, or the
        /// character itself when it was not encoded).
        let offset: Int
        /// The text of the URL that encodes it (`%00`, `%E2%80%AE`).
        let source: String
    }

    /// The components checked: every one that can carry percent-encoded text.
    static let components: [URIComponent] = [.userinfo, .host, .path, .query, .fragment]

    /// The first unclean character of `reference`'s decoded components, or nil.
    static func firstUnclean(in reference: URIReference) -> Finding? {
        for component in components {
            guard let raw = reference.raw(component), let base = reference.offset(of: component) else { continue }
            if let finding = firstUnclean(in: raw, baseOffset: base, component: component) { return finding }
        }
        return nil
    }

    /// Decodes `raw` byte by byte, remembering where each decoded byte came from, then reads the
    /// bytes as UTF-8 scalars (a malformed sequence reads as U+FFFD, which is clean: the URL
    /// parser and the app's format judge encodings).
    static func firstUnclean(in raw: Substring, baseOffset: Int, component: URIComponent) -> Finding? {
        let source = Array(raw.utf8)
        guard source.contains(where: { $0 == UInt8(ascii: "%") || $0 >= 0x80 || $0 < 0x20 || $0 == 0x7F }) else { return nil }
        var bytes: [UInt8] = []
        var origins: [Int] = []  // offset in `source` of each decoded byte
        var i = 0
        while i < source.count {
            if source[i] == UInt8(ascii: "%"), i + 2 < source.count, let high = hex(source[i + 1]), let low = hex(source[i + 2]) {
                bytes.append(high << 4 | low)
                origins.append(i)
                i += 3
            } else {
                bytes.append(source[i])
                origins.append(i)
                i += 1
            }
        }
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var start = 0
        var scalarIndex = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                let width = encoded.count
                if !CleanText.isClean(scalar) {
                    let first = origins[start]
                    let end = start + width < origins.count ? origins[start + width] : source.count
                    return Finding(component: component, violation: CleanText.Violation(scalar: scalar, offset: scalarIndex),
                                   offset: baseOffset + first, source: String(decoding: source[first..<end], as: UTF8.self))
                }
                start += width
            case .error(let length):
                start += length
            case .emptyInput:
                return nil
            }
            scalarIndex += 1
        }
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The `InvalidURL` answer for `finding` in `url`.
    static func refusal(_ finding: Finding, in url: String, bundleID: String) -> CourierError {
        CourierError(.invalidURL, "\(CleanText.escaped(url.prefix(200))) decodes to \(finding.violation) in the \(finding.component.rawValue) at offset \(finding.offset) (\(finding.source)); \(bundleID) is sent only clean text — remove it, or, if the app expects such characters, declare AllowsControlCharacters in its CourierURLFormat (docs/url-format.md)")
    }
}
