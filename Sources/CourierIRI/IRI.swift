public import CourierURL
import CourierNames
import Foundation

/// IRIs (RFC 3987) as people and apps write them — `todolist://www.acme.com?Café`,
/// `https://例え.jp/パス` — mapped to the URIs Courier routes and apps receive (section 3.1), and
/// back to the form a person reads (section 3.2).
///
/// The mapping:
/// - the parser's fast path reads the text first, taking bytes outside ASCII as characters to
///   encode (`IRILayout` in CourierURL): a valid URI is returned as it is (nothing else runs), and
///   an IRI whose ASCII is a valid URI is encoded in one pass and its layout moved, not parsed
///   again (unless a host name needs IDNA); other text that is all ASCII goes to the RFC 3986
///   parser as it is;
/// - every other character outside ASCII becomes its UTF-8 bytes percent-encoded, except in the
///   host of a scheme whose host is a DNS name (``domainNameSchemes``, the domains of a `mailto`
///   address, an app scheme whose URL format says `DNSHost`), which IDNA converts (``DomainName``:
///   libidn2, UTS #46 non-transitional, CheckBidi, CheckJoiners);
/// - a character that is not clean (`CleanText`: C0 and C1 controls, bidirectional formatting) is
///   refused, as section 4.1 asks, and so is one outside `ucschar` (and `iprivate`, which only a
///   query may hold): noncharacters such as U+FFFE, the specials U+FFF0–U+FFFF;
/// - no NFC: the text arrives in a Unicode encoding (UTF-8 on the command line and the bus), and
///   section 3.1 step 1 normalizes only IRIs that do not (read aloud, in a legacy charset), so the
///   bytes a person typed are the bytes the app gets — which is also what a browser does with a
///   path or query. IDNA normalizes host names itself.
///
/// What no mapping can mend (a space, a bad `%` escape, a bad port) is refused by the RFC 3986
/// parser with the offset in the text as given; ``suggestion(for:domainNameHost:)`` proposes the
/// URL that would be accepted.
public enum IRI {
    /// The schemes whose host is a DNS name (besides `mailto`'s domains and the app schemes whose
    /// URL format declares `DNSHost`).
    public static let domainNameSchemes: Set<String> = ["http", "https", "ftp", "ws", "wss"]

    /// Whether `scheme` (lowercased) is one of ``domainNameSchemes``.
    public static func isDomainNameScheme(_ scheme: String) -> Bool { domainNameSchemes.contains(scheme) }

    /// The URI `text` means.
    /// - Parameter domainNameHost: whether a (lowercased) scheme's host is a DNS name.
    /// - Throws: ``URIError`` with the UTF-8 offset in `text`: the RFC 3986 parser's errors, and
    ///   ``URIError/Code/uncleanCharacter``, ``URIError/Code/notIRICharacter``,
    ///   ``URIError/Code/invalidDomainName``.
    @inlinable
    public static func uri(
        from text: String, domainNameHost: (String) -> Bool = isDomainNameScheme
    ) throws(URIError) -> IRIConversion {
        // One fast parse for both: it classifies the bytes outside ASCII in the same pass as the
        // rest, so a URI costs what the parser costs and an IRI is not parsed twice.
        var reading: IRILayout? = nil
        if let uri = URIReference(iriText: text, reading: &reading) { return IRIConversion(uri: uri, original: nil) }
        if let reading { return try escaping(text, layout: reading, domainNameHost: domainNameHost) }
        return try mapping(text, domainNameHost: domainNameHost)
    }

    /// ``uri(from:domainNameHost:)`` for text the fast path took as an IRI: each character
    /// outside ASCII checked and escaped, and the URI's layout moved from the text's. A host name
    /// IDNA converts changes more than escapes do: that text goes to ``mapping(_:domainNameHost:)``.
    @usableFromInline
    static func escaping(_ text: String, layout: IRILayout, domainNameHost: (String) -> Bool) throws(URIError) -> IRIConversion {
        var failure: URIError? = nil
        let escaped: URIReference?? = text.utf8.withContiguousStorageIfAvailable { input in
            if Mapping.convertsHostNames(input, layout, domainNameHost: domainNameHost) { return nil }
            do throws(URIError) {
                return layout.uri(try Mapping(escaping: input, nonASCIICount: layout.nonASCIICount).uri())
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        if case .some(.some(let uri)) = escaped { return IRIConversion(uri: uri, original: text) }
        return try mapping(text, domainNameHost: domainNameHost)
    }

    /// The rest of ``uri(from:domainNameHost:)``, on the string's own UTF-8 bytes: text that is
    /// all ASCII (a scan a word at a time tells) goes to the parser as it is; other text is mapped
    /// in one pass and the output parsed (and a refusal placed in the text as given).
    @usableFromInline
    static func mapping(_ text: String, domainNameHost: (String) -> Bool) throws(URIError) -> IRIConversion {
        var failure: URIError? = nil
        let mapped: URIReference?? = text.utf8.withContiguousStorageIfAvailable { input in
            guard let mapping = Mapping(input, domainNameHost: domainNameHost) else { return nil }
            let output: String
            do throws(URIError) {
                output = try mapping.uri()
            } catch {
                failure = error
                return nil
            }
            do throws(URIError) {
                return try URIReference(output)
            } catch {
                failure = mapping.inInput(error)
                return nil
            }
        }
        if let failure { throw failure }
        switch mapped {
        case .some(.some(let uri)): return IRIConversion(uri: uri, original: text)
        // All ASCII, and the fast path declined it: the full parser, which says why if it refuses.
        case .some(.none): return IRIConversion(uri: try URIReference(fullParse: text, options: .default), original: nil)
        case .none:
            // A bridged string without contiguous UTF-8: map a native copy.
            var native = text
            native.makeContiguousUTF8()
            let conversion = try mapping(native, domainNameHost: domainNameHost)
            return IRIConversion(uri: conversion.uri, original: conversion.isConverted ? text : nil)
        }
    }

    /// The URL that would be accepted for a refused `text`: the mapped URI with each space, other
    /// printable character the grammar refuses, and lone `%` percent-encoded; nil when that does
    /// not make a URI (a control character, a bad port, a bad host) or nothing needs mending.
    public static func suggestion(for text: String, domainNameHost: (String) -> Bool = isDomainNameScheme) -> String? {
        var copy = text
        let mapped: String? = copy.withUTF8 { input in
            guard let mapping = Mapping(input, domainNameHost: domainNameHost) else { return text }
            return try? mapping.uri()
        }
        guard let mapped else { return nil }
        var bytes = Array(mapped.utf8)
        for _ in 0..<64 {
            let failure: URIError? = bytes.withUnsafeBufferPointer { buffer in
                do throws(URIError) {
                    _ = try URIReference(utf8: buffer)
                    return nil
                } catch {
                    return error
                }
            }
            guard let failure else {
                let accepted = String(decoding: bytes, as: UTF8.self)
                return accepted == text ? nil : accepted
            }
            let mendable: Set<URIError.Code> = [.disallowedCharacter, .invalidPercentEncoding, .unbalancedBracket]
            guard mendable.contains(failure.code), failure.offset < bytes.count else { return nil }
            let byte = bytes[failure.offset]
            guard byte >= 0x20, byte < 0x7F else { return nil }
            bytes.replaceSubrange(failure.offset...failure.offset, with: Mapping.escape(byte))
        }
        return nil
    }

    /// The form of `uri` to show a person (RFC 3987 section 3.2): percent-encoded UTF-8 (uppercase
    /// hex) that spells a clean `ucschar` (or an `iprivate` in the query) is shown as the
    /// character, and the A-labels of a DNS host as Unicode when libidn2 maps them back to exactly
    /// these bytes. ASCII stays encoded (`%20`, `%2F`), and so does everything else: mapping the
    /// result back with ``uri(from:domainNameHost:)`` gives `uri` again.
    public static func displayForm(of uri: URIReference, domainNameHost: (String) -> Bool = isDomainNameScheme) -> String {
        let string = uri.string
        guard string.utf8.contains(UInt8(ascii: "%")) || string.utf8.contains(UInt8(ascii: "-")) else { return string }
        let bytes = Array(string.utf8)
        // The host names the mapping converts with IDNA: never decoded (the mapping would convert
        // the characters instead of encoding them again); a DNS host's A-labels shown as Unicode.
        var domains: [Range<Int>] = []
        let shape = bytes.withUnsafeBufferPointer { buffer in
            let shape = IRIShape(buffer)
            shape.forEachDomain(in: buffer, domainNameHost: domainNameHost) { if !$0.isEmpty { domains.append($0) } }
            return shape
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if let domain = domains.first(where: { $0.lowerBound == i }) {
                let name = String(decoding: bytes[domain], as: UTF8.self)
                let shown = shape.isMailto ? nil : DomainName.displayForm(of: name)
                out += Array((shown ?? name).utf8)
                i = domain.upperBound
                continue
            }
            guard bytes[i] == UInt8(ascii: "%") else {
                out.append(bytes[i])
                i += 1
                continue
            }
            // A run of escapes: decode it, show each clean non-ASCII scalar, keep the rest encoded.
            var run: [UInt8] = []
            var end = i
            while end + 2 < bytes.count, bytes[end] == UInt8(ascii: "%"),
                let high = hexValue(bytes[end + 1]), let low = hexValue(bytes[end + 2]) {
                run.append(high << 4 | low)
                end += 3
            }
            let inQuery = shape.query?.contains(i) ?? false
            var k = 0
            while k < run.count {
                let length = UTF8Sequence.length(ofSequenceAt: k, in: run)
                // Only escapes written as the mapping writes them (uppercase hex): `%c3%a9` stays, so
                // that mapping the display form back gives these very bytes.
                let escapes = bytes[(i + 3 * k)..<min(end, i + 3 * (k + length))]
                if length > 1, !escapes.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f") }),
                    let scalar = UTF8Sequence.scalar(run[k..<(k + length)]), CleanText.isClean(scalar), isUCSChar(scalar.value) || (inQuery && isPrivate(scalar.value)) {
                    out += Array(String(Character(scalar)).utf8)
                    k += length
                } else {
                    out += bytes[(i + 3 * k)..<(i + 3 * k + 3)]
                    k += 1
                }
            }
            i = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Characters (RFC 3987 section 2.2)

    /// `ucschar`: the characters outside ASCII an IRI may hold anywhere but in the scheme.
    static func isUCSChar(_ v: UInt32) -> Bool {
        switch v {
        case 0xA0...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFEF: true
        case 0x10000...0xDFFFF: v & 0xFFFF <= 0xFFFD
        case 0xE1000...0xEFFFD: true
        default: false
        }
    }

    /// `iprivate`: private-use characters, allowed only in a query.
    static func isPrivate(_ v: UInt32) -> Bool {
        switch v {
        case 0xE000...0xF8FF, 0xF0000...0xFFFFD, 0x100000...0x10FFFD: true
        default: false
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

/// An IRI and the URI it maps to.
public struct IRIConversion: Sendable, Hashable {
    /// The URI: what Courier routes and the app receives.
    public let uri: URIReference
    /// The text as given when it is not the URI (one string less to hold for a URI given as one).
    @usableFromInline let original: String?

    @inlinable
    init(uri: URIReference, original: String?) {
        self.uri = uri
        self.original = original
    }

    /// The text as given.
    public var iri: String { original ?? uri.string }

    /// Whether mapping changed anything (false for a URI given as one).
    public var isConverted: Bool { original != nil }
}

extension URIError.Code {
    /// A control (C0, DEL, C1, line separator) or bidirectional formatting character in an IRI
    /// (`CleanText`; RFC 3987 section 4.1): refused, not encoded.
    public static let uncleanCharacter = URIError.Code(rawValue: "unclean-character")
    /// A character outside ASCII that is not an IRI character (`ucschar`, or `iprivate` in a query).
    public static let notIRICharacter = URIError.Code(rawValue: "not-iri-character")
    /// A host name that IDNA (libidn2) refuses.
    public static let invalidDomainName = URIError.Code(rawValue: "invalid-domain-name")
}

/// Decoding single UTF-8 sequences of percent-decoded bytes.
enum UTF8Sequence {
    /// The length the lead byte at `k` announces (1 for ASCII and for a byte that leads nothing).
    static func length(ofSequenceAt k: Int, in bytes: [UInt8]) -> Int {
        let lead = bytes[k]
        let length = switch lead {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 1
        }
        return k + length <= bytes.count ? length : 1
    }

    /// The scalar `bytes` encode, when they are exactly one well-formed UTF-8 sequence.
    static func scalar(_ bytes: ArraySlice<UInt8>) -> Unicode.Scalar? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator), iterator.next() == nil,
            scalar.utf8.count == bytes.count
        else { return nil }
        return scalar
    }
}
