/// Decides whether a file may be dropped on an app, before anything is written.
///
/// `check` throws `InboxError.notPermitted(…)` naming the type it found when the app does not
/// declare it; any other `InboxError` is passed through as it is. It is called once per file, in
/// order, from the thread running the drop.
public protocol DropTypePolicy: Sendable {
    func check(_ candidate: DropCandidate) throws(InboxError)
}

/// Accepts every file: for tools and tests that place files without an app's declarations.
public struct AcceptAnyType: DropTypePolicy {
    public init() {}
    public func check(_ candidate: DropCandidate) throws(InboxError) {}
}

/// A policy made from a closure.
public struct DropTypeCheck: DropTypePolicy {
    let body: @Sendable (DropCandidate) throws(InboxError) -> Void

    public init(_ body: @escaping @Sendable (DropCandidate) throws(InboxError) -> Void) {
        self.body = body
    }

    public func check(_ candidate: DropCandidate) throws(InboxError) {
        try body(candidate)
    }
}
