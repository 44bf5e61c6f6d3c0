public import CourierURL

/// The guide's todolist URL: `todolist://www.acme.com?Quarterly%20Report#200806231300`.
///
/// - The query, percent-decoded once as strict UTF-8, is the task name, kept exactly as decoded
///   (`+` stays a plus). It is required; an empty or all-white-space task is rejected.
/// - The fragment is the due date as `yyyyMMddHHmm` (24-hour clock, Gregorian calendar, a real
///   date and time), or `today`, or absent — both meaning now. Due dates are local time.
///
/// The rules are ``format``, a ``URLFormat`` that the todolist manifest also carries as data
/// (`CourierURLFormat`), so the broker refuses the same URLs before launching the app.
public struct TodoURL: Sendable, Hashable {
    /// When the task is due.
    public enum Due: Sendable, Hashable {
        /// `today` or no fragment: the moment the URL is handled.
        case now
        /// A local wall-clock time.
        case at(LocalDateTime)
    }

    /// The task name (never blank).
    public let task: String
    /// The due date.
    public let due: Due

    /// `todolist`.
    public static let scheme = try! URIScheme("todolist")

    /// `yyyyMMddHHmm`.
    public static let dueDatePattern = try! DateTimePattern("yyyyMMddHHmm")

    /// The todolist URL format, as declared in the todolist manifest.
    public static let format = URLFormat(
        schemes: [scheme],
        components: [
            .query: URLComponentRule(.required, decoding: .percent, allowsBlank: false),
            .fragment: URLComponentRule(.optional, decoding: .percent, type: .dateTime(dueDatePattern), keywords: ["today"]),
        ])

    /// A task due at `due`.
    /// - Throws: ``TodoURLError`` when the task is empty or only white space.
    public init(task: String, due: Due = .now) throws(TodoURLError) {
        guard !task.allSatisfy(\.isWhitespace) else {
            throw TodoURLError(offset: nil, reason: task.isEmpty ? "the task is empty" : "the task is only white space", advice: "give the task a name")
        }
        self.task = task
        self.due = due
    }

    /// Decodes a todolist URL.
    /// - Throws: ``TodoURLError`` saying what is wrong, where, and what to do.
    public init(_ url: String) throws(TodoURLError) {
        let reference: URIReference
        do {
            reference = try URIReference(url)
        } catch {
            throw TodoURLError(offset: error.offset, reason: "invalid URL: \(error.message)", advice: error.advice)
        }
        try self.init(reference)
    }

    /// Decodes a parsed todolist URL.
    /// - Throws: ``TodoURLError`` saying which component is wrong and why.
    public init(_ reference: URIReference) throws(TodoURLError) {
        let decoded: DecodedURL
        do {
            decoded = try Self.format.decode(reference)
        } catch {
            throw TodoURLError(offset: error.offset, reason: Self.explain(error), advice: error.advice)
        }
        guard case .text(let task)? = decoded[.query] else {
            preconditionFailure("the format requires a text query")
        }
        self.task = task
        switch decoded[.fragment] {
        case .dateTime(let date)?: self.due = .at(date)
        default: self.due = .now  // absent or `today`
        }
    }

    /// The URL for this task: the task percent-encoded in the query (`+` as %2B so no form
    /// decoder turns it into a space), the due date in the fragment, none when due now.
    public func url(host: String = "www.acme.com") -> String {
        var text = "todolist://\(host)?" + PercentEncoding.encode(task, allowing: Self.taskCharacters)
        if case .at(let date) = due { text += "#" + Self.dueDatePattern.format(date) }
        return text
    }

    /// Names the components as the todolist user knows them: task (query), due date (fragment).
    static func explain(_ violation: URLFormatViolation) -> String {
        let names: [URIComponent: String] = [.query: "the task (query)", .fragment: "the due date (fragment)"]
        guard let name = names[violation.component], violation.reason.hasPrefix("the \(violation.component.rawValue)") else {
            return violation.reason
        }
        return name + violation.reason.dropFirst("the \(violation.component.rawValue)".count)
    }

    static let taskCharacters = PercentEncoding.AllowedCharacters.query.subtracting("+")
}

/// Why a todolist URL was refused: what, where (byte offset in the URL), and what to do.
public struct TodoURLError: Error, Sendable, Hashable, CustomStringConvertible {
    public let offset: Int?
    public let reason: String
    public let advice: String

    public var description: String { advice.isEmpty ? reason : "\(reason); \(advice)" }
}
