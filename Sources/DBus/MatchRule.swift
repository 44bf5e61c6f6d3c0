/// Which signals a subscription wants; sent to the bus as an `AddMatch` rule and applied again
/// locally to route each signal to its subscribers.
///
/// Local matching compares `sender` only when it is a unique name or the bus itself (the bus
/// already filtered by well-known names when it routed the signal to us).
public struct MatchRule: Sendable, Hashable {
    public var sender: BusName?
    public var path: ObjectPath?
    /// Matches `pathNamespace` and every path below it.
    public var pathNamespace: ObjectPath?
    public var interface: InterfaceName?
    public var member: MemberName?
    /// String argument matches: index → exact value (`arg0='org.courier.Broker'`).
    public var arguments: [Int: String]

    public init(
        sender: BusName? = nil, path: ObjectPath? = nil, pathNamespace: ObjectPath? = nil,
        interface: InterfaceName? = nil, member: MemberName? = nil, arguments: [Int: String] = [:]
    ) {
        self.sender = sender
        self.path = path
        self.pathNamespace = pathNamespace
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// The rule text for `org.freedesktop.DBus.AddMatch`.
    /// Written by appending, not as parts `joined(separator:)`: an app sends its first rule on the
    /// way to `CheckIn`, and the first `joined` of a process looks up the array's associated types at
    /// run time — a search of every protocol-conformance record (docs/PERFORMANCE.md, "Cold open").
    public var ruleString: String {
        var rule = "type='signal'"
        func add(_ key: String, _ value: String) { rule += "," + key + "='" + value.replacingApostrophes() + "'" }
        if let sender { add("sender", sender.rawValue) }
        if let path { add("path", path.rawValue) }
        if let pathNamespace { add("path_namespace", pathNamespace.rawValue) }
        if let interface { add("interface", interface.rawValue) }
        if let member { add("member", member.rawValue) }
        for (i, v) in arguments.sorted(by: { $0.key < $1.key }) { add("arg" + String(i), v) }
        return rule
    }

    /// Whether the signal `m` satisfies this rule.
    public func matches(_ m: DBusMessage) -> Bool {
        guard m.kind == .signal else { return false }
        if let sender, sender.isUnique || sender == .bus, m.sender != sender { return false }
        if let path, m.path != path { return false }
        if let ns = pathNamespace {
            guard let p = m.path?.rawValue else { return false }
            if ns.rawValue != "/" && p != ns.rawValue && !p.hasPrefix(ns.rawValue + "/") { return false }
        }
        if let interface, m.interface != interface { return false }
        if let member, m.member != member { return false }
        for (i, v) in arguments {
            guard i < m.body.count, case .string(let s) = m.body[i], s == v else { return false }
        }
        return true
    }
}

extension String {
    /// Match-rule quoting: a `'` becomes `'\''`.
    fileprivate func replacingApostrophes() -> String {
        var out = ""
        for c in self { if c == "'" { out += "'\\''" } else { out.append(c) } }
        return out
    }
}
