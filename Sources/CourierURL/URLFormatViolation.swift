/// Why a URL does not fit an app's ``URLFormat``: which component, where, why, what to do.
///
/// `description` reads like `the fragment "200802301300" is not a valid date: 30 February 2008
/// does not exist (February 2008 has 29 days); write a real date and time as yyyyMMddHHmm or 'today'`.
public struct URLFormatViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The component at fault.
    public let component: URIComponent
    /// The query item at fault, when the rule is a query item's.
    public let queryItem: String?
    /// The UTF-8 byte offset in the URL, when the component is present.
    public let offset: Int?
    /// What is wrong, naming the component.
    public let reason: String
    /// What to do.
    public let advice: String

    public init(component: URIComponent, queryItem: String? = nil, offset: Int?, reason: String, advice: String) {
        self.component = component
        self.queryItem = queryItem
        self.offset = offset
        self.reason = reason
        self.advice = advice
    }

    public var description: String { withAdvice(reason, advice) }
}
