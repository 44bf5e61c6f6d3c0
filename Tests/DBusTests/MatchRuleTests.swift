import BusTestSupport
import DBus
import Testing

/// The `AddMatch` text of a rule: every field in the order the bus documents, values quoted, an
/// apostrophe escaped as the D-Bus specification says (`'\''`), and accepted by a real bus.
@Suite struct MatchRuleTests {
    static let full = MatchRule(
        sender: "org.courier.Broker", path: "/org/courier/Broker", pathNamespace: "/org/courier",
        interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arguments: [2: "it's", 0: "org.courier.Broker"])

    @Test func ruleTextListsEveryFieldQuoted() {
        #expect(Self.full.ruleString == "type='signal',sender='org.courier.Broker',path='/org/courier/Broker',path_namespace='/org/courier',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.courier.Broker',arg2='it'\\''s'")
        #expect(MatchRule().ruleString == "type='signal'")
    }

    @Test func theBusAcceptsTheRuleText() async throws {
        try await withPrivateBus { bus in
            let c = try bus.connect()
            defer { c.close() }
            // path and path_namespace together are refused by the bus: one rule each.
            var withPath = Self.full
            withPath.pathNamespace = nil
            var withNamespace = Self.full
            withNamespace.path = nil
            for rule in [withPath, withNamespace] {
                _ = try await c.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "AddMatch", [.string(rule.ruleString)])
            }
        }
    }
}
