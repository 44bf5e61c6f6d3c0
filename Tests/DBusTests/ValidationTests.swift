import DBus
import Testing

/// Invalid names, paths, signatures and values are refused in Swift, never handed to libdbus
/// (which aborts the process on them).
@Suite struct ValidationTests {
    @Test(arguments: ["", "a", "/a/", "//", "/a//b", "/a-b", "/ä", "/a\u{0}b"])
    func invalidObjectPathsAreRejected(_ text: String) {
        #expect(throws: DBusValidationError.self) { try ObjectPath(text) }
    }

    @Test func overlongObjectPathIsRejected() {
        let long = "/" + Array(repeating: "x", count: 5000).joined(separator: "/")
        #expect(throws: DBusValidationError.self) { try ObjectPath(long) }
    }

    @Test(arguments: ["", "org", ".org.a", "org..a", "1org.a", "org.a.", String(repeating: "a.", count: 200) + "a", "org.a\u{0}"])
    func invalidBusNamesAreRejected(_ text: String) {
        #expect(throws: DBusValidationError.self) { try BusName(text) }
    }

    @Test func validNamesAreAccepted() throws {
        let texts = [":1.42", "org.courier.Broker", "org.courier.Broker1", "OpenURL", "org.courier.Error.NoHandler"]
        _ = try BusName(texts[0])
        _ = try BusName(texts[1])
        _ = try InterfaceName(texts[2])
        _ = try MemberName(texts[3])
        _ = try ErrorName(texts[4])
        #expect(try ObjectPath(busName: "com.acme.todo-list").rawValue == "/com/acme/todo_list")
    }

    @Test(arguments: ["a", "a{vs}", "(", "()", "a{s}", "{ss}", "z", String(repeating: "a", count: 40) + "i", String(repeating: "s", count: 256)])
    func invalidSignaturesAreRejected(_ text: String) {
        #expect(throws: DBusValidationError.self) { try Signature(text) }
    }

    @Test func signatureParsesIntoTypes() throws {
        let text = "sa{sv}(ih)av"
        let s = try Signature(text)
        #expect(s.types == [.string, .dictionary(key: .string, value: .variant), .structure([.int32, .unixFD]), .array(.variant)])
    }

    @Test(arguments: ["Interface", "org..a", "org.a-b", "org.1a"])
    func invalidInterfaceNamesAreRejected(_ text: String) {
        #expect(throws: DBusValidationError.self) { try InterfaceName(text) }
    }

    @Test(arguments: ["", "a.b", "1a", "a-b", "a b", "é", "a\u{0}", "Ping?", String(repeating: "a", count: 256)])
    func invalidMemberNamesAreRejected(_ text: String) {
        #expect(throws: DBusValidationError.self) { try MemberName(text) }
    }

    @Test(arguments: ["a", "_", "Z9", "_open_URL2", "OpenURL", String(repeating: "a", count: 255)])
    func validMemberNamesAreAccepted(_ text: String) throws {
        #expect(try MemberName(text).rawValue == text)
    }
}
