import CIDN2
import CourierNames
#if canImport(Glibc)
import Glibc
#endif

/// Internationalized domain names through libidn2: UTS #46 non-transitional processing (so `ß`
/// and the joiners stay what they are), then the IDNA2008 label checks, which include CheckBidi
/// (RFC 5893) and CheckJoiners (the CONTEXTJ rules). No STD3 rules, as a browser: `_` and the
/// sub-delimiters stay allowed in a name.
public enum DomainName {
    /// Why libidn2 refused a name: its own words and code.
    public struct Failure: Error, Sendable, Hashable {
        /// libidn2's return code (`IDN2_*`, negative).
        public let code: Int32
        /// libidn2's message and name for it, e.g. `string has forbidden bi-directional properties
        /// (IDN2_BIDI)`.
        public let reason: String
    }

    static let flags = Int32(IDN2_NONTRANSITIONAL.rawValue | IDN2_NFC_INPUT.rawValue)

    /// The ASCII (A-label) form of `name`, lowercased: what DNS and a browser look up.
    public static func toASCII(_ name: String) throws(Failure) -> String {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let code = name.withCString { idn2_lookup_u8(UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), &output, flags) }
        guard code == Int32(IDN2_OK.rawValue), let output else { throw failure(code) }
        defer { idn2_free(output) }
        return String(cString: output)
    }

    /// The Unicode form of an ASCII `name` whose A-labels libidn2 decodes (`xn--r8jz45g.jp` →
    /// `例え.jp`), when mapping that back gives exactly `name` and every character is clean; nil
    /// otherwise (then the name is shown as it is).
    public static func displayForm(of name: String) -> String? {
        guard name.utf8.allSatisfy({ $0 < 0x80 }), name.lowercased().contains("xn--") else { return nil }
        var output: UnsafeMutablePointer<CChar>? = nil
        let code = idn2_to_unicode_8z8z(name, &output, 0)
        guard code == Int32(IDN2_OK.rawValue), let output else { return nil }
        defer { idn2_free(output) }
        let unicode = String(cString: output)
        guard unicode != name, unicode.unicodeScalars.allSatisfy({ $0.isASCII || IRI.isUCSChar($0.value) }),
            (try? toASCII(unicode)) == name,
            unicode.unicodeScalars.allSatisfy({ CleanText.isClean($0) })
        else { return nil }
        return unicode
    }

    static func failure(_ code: Int32) -> Failure {
        let message = idn2_strerror(code).map { String(cString: $0) } ?? "error \(code)"
        let name = idn2_strerror_name(code).map { String(cString: $0) } ?? "\(code)"
        return Failure(code: code, reason: "\(message) (libidn2 \(name))")
    }
}
