public import CourierManifest
public import CourierNames

/// An app's caller rules as the broker core applies them: for each scheme that does not admit
/// anyone its `CourierAllowedCallers`, and `CourierAllowedDropCallers` for drops (docs/manifest.md).
///
/// Evaluated before anything is launched, queued or written: the dispatcher for `OpenURL` (and the
/// files a drop hands it), `FileDropService` before a byte reaches an Inbox, and the queries
/// (`CanOpenURL`, a dry run) so that they predict the open. Pure: the caller is named by what the
/// broker derived from its bus credentials (`BrokerFacts.sourceApplication`), never by its word.
public struct CallerPolicy: Sendable, Hashable {
    /// The rules of the schemes that do not admit anyone (lowercased scheme → rule).
    public var schemes: [String: CallerRule]
    /// Who may drop files on the app.
    public var drops: CallerRule
    /// The manifest the rules come from, for the refusal's message.
    public var manifestPath: String

    public init(schemes: [String: CallerRule] = [:], drops: CallerRule = .anyone, manifestPath: String = "") {
        self.schemes = schemes.filter { !$0.value.admitsAnyone }
        self.drops = drops
        self.manifestPath = manifestPath
    }

    /// The rules of `manifest`.
    public init(_ manifest: Manifest) {
        var schemes: [String: CallerRule] = [:]
        for type in manifest.urlTypes where !type.allowedCallers.admitsAnyone {
            for scheme in type.schemes { schemes[scheme] = type.allowedCallers }
        }
        self.init(schemes: schemes, drops: manifest.dropCallers, manifestPath: manifest.path)
    }

    /// No rule: every caller is admitted everywhere (the default; nothing to derive or check).
    public var admitsAnyone: Bool { schemes.isEmpty && drops.admitsAnyone }

    /// How a request reaches the app.
    public enum Door: Sendable, Hashable {
        /// An `OpenURL` of this scheme (lowercased).
        case url(scheme: String)
        /// Files dropped into its Inbox.
        case drop
    }

    /// A caller as the refusal names it.
    public struct Caller: Sendable, Hashable {
        /// The Courier app it is (from its credentials); "" when it is none.
        public var sourceApplication: String
        /// Its unique bus name, if known.
        public var uniqueName: String
        public var pid: Int32?

        public init(sourceApplication: String, uniqueName: String = "", pid: Int32? = nil) {
            self.sourceApplication = sourceApplication
            self.uniqueName = uniqueName
            self.pid = pid
        }
    }

    /// The rule that applies at `door`.
    public func rule(for door: Door) -> CallerRule {
        switch door {
        case .url(let scheme): schemes[scheme] ?? .anyone
        case .drop: drops
        }
    }

    /// nil when `caller` may come through `door` of `app`; else `NotPermitted`, saying which rule
    /// (key, manifest) refused whom, and that nothing was launched or delivered.
    public func refusal(of caller: Caller, at door: Door, app: String) -> CourierError? {
        let rule = rule(for: door)
        guard !rule.admits(caller: caller.sourceApplication, app: app) else { return nil }
        let what = switch door {
        case .url(let scheme): "\(scheme): URLs"
        case .drop: "dropped files"
        }
        var who = caller.sourceApplication.isEmpty ? "this caller is not a Courier app" : "this caller is \(caller.sourceApplication), which it does not list"
        let handle = [caller.uniqueName.isEmpty ? nil : caller.uniqueName, caller.pid.map { "pid \($0)" }].compactMap { $0 }
        if !handle.isEmpty { who += " (\(handle.joined(separator: ", ")))" }
        let source = manifestPath.isEmpty ? rule.keyPath : "\(rule.keyPath) in \(manifestPath)"
        return CourierError(.notPermitted, "\(app) accepts \(what) from \(rule) (\(source)); \(who). Nothing was launched or delivered: send it from an app the rule admits, or ask the app's developer to admit yours (`courier handlers --explain` shows the rules)")
    }
}
