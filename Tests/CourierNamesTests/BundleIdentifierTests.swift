import CourierNames
import Foundation
import Testing

/// The one bundle-identifier rule, and its mapping to D-Bus names (D-Bus specification, "Bus names").
@Suite struct BundleIdentifierTests {
    @Test(arguments: [
        ("com.acme.todolist", "com.acme.todolist", "/com/acme/todolist"),
        ("com.8bit.bitwarden", "com._8bit.bitwarden", "/com/_8bit/bitwarden"),
        ("org.7-zip.Zipper", "org._7_zip.Zipper", "/org/_7_zip/Zipper"),
        ("com.acme.todo-list_2", "com.acme.todo_list_2", "/com/acme/todo_list_2"),
        ("com.acme.2", "com.acme._2", "/com/acme/_2"),
        ("_a.b", "_a.b", "/_a/b"),
    ])
    func mapsToTheBusNameTheSpecificationGives(_ id: String, _ busName: String, _ path: String) throws {
        let identifier = try BundleIdentifier(id)
        #expect(identifier.rawValue == id)
        #expect(identifier.description == id, "people read the bundle id, not the bus name")
        #expect(identifier.busName == busName)
        #expect(identifier.objectPath == path)
    }

    @Test(arguments: ["", "noDots", "com..acme", "com.acme.", ".com.acme", "com.-x", "-com.x", "com.acme.to do",
                      "com.acmé.app", "com/acme.x", "../etc", "com.acme\u{0}x", "com.acme\n", "a b",
                      "com." + String(repeating: "a", count: 236)])
    func refusesWhatCannotNameAFileOrABusName(_ id: String) {
        #expect(BundleIdentifier(validating: id) == nil)
        #expect(throws: InvalidBundleIdentifier.self) { try BundleIdentifier(id) }
    }

    /// A bundle id is the bus name the app owns: the names of the bus, of desktop services and of
    /// Courier's own services are not apps, in any case.
    @Test(arguments: ["org.courier.Broker", "org.courier.BrokerLink1", "org.freedesktop.DBus", "org.freedesktop.Notifications",
                      "org.freedesktop.portal.Desktop", "org.courier.anything", "Org.Courier.Broker", "ORG.FREEDESKTOP.DBus", "org.courier"])
    func refusesTheReservedNamespaces(_ id: String) {
        #expect(BundleIdentifier(validating: id) == nil)
        do {
            _ = try BundleIdentifier(id)
        } catch {
            #expect(error.reason.contains("is reserved for the bus and for Courier itself"), "\(error.reason)")
        }
        // Names that only start alike are apps.
        #expect(BundleIdentifier(validating: "org.courierapps.x") != nil)
        #expect(BundleIdentifier(validating: "org.freedesktopper.x") != nil)
        #expect(BundleIdentifier(validating: "com.courier.Broker") != nil)
    }

    @Test func theLongestIdentifierStillNamesADesktopEntry() throws {
        let longest = "com." + String(repeating: "a", count: BundleIdentifier.maximumLength - 4)
        let identifier = try BundleIdentifier(longest)
        #expect(("courier-" + identifier.rawValue + ".desktop").utf8.count <= 255)
    }

    @Test func theErrorSaysWhatIsWrongAndWhatToWrite() {
        do {
            _ = try BundleIdentifier("com..acme")
            Issue.record("accepted com..acme")
        } catch {
            #expect(error.identifier == "com..acme")
            #expect(error.description.contains("empty element"))
            #expect(error.description.contains("com.example.app"))
        }
    }

    @Test func collidingIdentifiersShareABusNameAndStayDistinct() throws {
        let hyphen = try BundleIdentifier("com.acme.a-b")
        let underscore = try BundleIdentifier("com.acme.a_b")
        #expect(hyphen.busName == underscore.busName)
        #expect(hyphen != underscore)
    }

    @Test func codableAsItsText() throws {
        let identifier = try BundleIdentifier("com.8bit.bitwarden")
        let data = try JSONEncoder().encode([identifier])
        #expect(String(decoding: data, as: UTF8.self) == #"["com.8bit.bitwarden"]"#)
        #expect(try JSONDecoder().decode([BundleIdentifier].self, from: data) == [identifier])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([BundleIdentifier].self, from: Data(#"["com..x"]"#.utf8)) }
    }
}
