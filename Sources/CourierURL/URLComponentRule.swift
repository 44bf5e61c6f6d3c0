/// What an app accepts in one component (or one query item) of its URLs.
///
/// Checks run in this order on a present component: decoding, ``maximumLength``, ``keywords``
/// (an exact match is accepted as a keyword), ``allowsBlank``, ``pattern``, then ``type``.
public struct URLComponentRule: Sendable, Hashable {
    /// Whether the component must, may or must not be present.
    public enum Presence: String, Sendable, Hashable, CaseIterable {
        case required, optional, forbidden
    }

    /// How the raw component becomes text.
    public enum Decoding: String, Sendable, Hashable, CaseIterable {
        /// Kept exactly as written, percent escapes included.
        case raw
        /// Percent-decoded once as strict UTF-8; `+` stays a plus.
        case percent
        /// Percent-decoded with `+` as a space (HTML form encoding).
        case form
    }

    public var presence: Presence
    public var decoding: Decoding
    public var type: URLValueType
    /// Exact decoded values accepted besides the type (e.g. `today` for a date).
    public var keywords: [String]
    /// When false, an empty or all-white-space value is rejected.
    public var allowsBlank: Bool
    /// A regular expression the whole decoded value must match (Swift `Regex` syntax).
    public var pattern: String?
    /// The largest decoded value accepted, in UTF-8 bytes.
    public var maximumLength: Int?

    public init(
        _ presence: Presence = .optional, decoding: Decoding = .percent, type: URLValueType = .text,
        keywords: [String] = [], allowsBlank: Bool = true, pattern: String? = nil, maximumLength: Int? = nil
    ) {
        self.presence = presence
        self.decoding = decoding
        self.type = type
        self.keywords = keywords
        self.allowsBlank = allowsBlank
        self.pattern = pattern
        self.maximumLength = maximumLength
    }

    /// Decodes and checks a present raw value. `offset` is where it starts in the URL.
    func value(
        of raw: Substring, offset: Int, what: String, component: URIComponent, queryItem: String?
    ) throws(URLFormatViolation) -> URLValue {
        func violation(_ reason: String, _ advice: String, at: Int? = offset) -> URLFormatViolation {
            URLFormatViolation(component: component, queryItem: queryItem, offset: at, reason: "\(what) \(reason)", advice: advice)
        }
        let text: String
        switch decoding {
        case .raw:
            text = String(raw)
        case .percent, .form:
            do {
                text = try PercentEncoding.decode(raw, plusAsSpace: decoding == .form, baseOffset: offset, component: component)
            } catch {
                throw URLFormatViolation(
                    component: component, queryItem: queryItem, offset: error.offset,
                    reason: "\(what) cannot be decoded: \(error.message)", advice: error.advice)
            }
        }
        if let maximumLength, text.utf8.count > maximumLength {
            throw violation("is \(text.utf8.count) bytes long, over the limit of \(maximumLength)", "shorten it")
        }
        if keywords.contains(text) { return .keyword(text) }
        if !allowsBlank, text.allSatisfy(\.isWhitespace) {
            throw violation(text.isEmpty ? "is empty" : "is only white space", "give a value with visible characters")
        }
        if let pattern {
            guard let regex = try? Regex(pattern) else {
                throw violation("cannot be checked: the format's pattern \"\(pattern)\" is not a valid regular expression", "fix the pattern in the URL format")
            }
            guard (try? regex.wholeMatch(in: text)) != nil else {
                throw violation("\"\(text)\" does not match the pattern \(pattern)", "write a value that matches \(pattern)")
            }
        }
        let alternatives = keywords.isEmpty ? "" : " or " + keywords.map { "'\($0)'" }.joined(separator: " or ")
        switch type {
        case .text:
            return .text(text)
        case .integer(let minimum, let maximum):
            guard let value = Int(text) else {
                throw violation("\"\(text)\" is not a decimal integer", "write digits only\(alternatives)")
            }
            if let minimum, value < minimum {
                throw violation("\(value) is below the minimum \(minimum)", "use a value of at least \(minimum)")
            }
            if let maximum, value > maximum {
                throw violation("\(value) is above the maximum \(maximum)", "use a value of at most \(maximum)")
            }
            return .integer(value)
        case .dateTime(let pattern):
            switch pattern.parse(text) {
            case .success(let date): return .dateTime(date)
            case .failure(let invalid):
                throw violation("\"\(text)\" is not a valid date: \(invalid.reason)", "write a real date and time as \(pattern.pattern)\(alternatives)")
            }
        }
    }
}
