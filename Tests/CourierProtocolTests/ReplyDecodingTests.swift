import CourierNames
import CourierProtocol
import DBus
import Testing

/// Replies and options are decoded by the declaration's shapes and keys, never by guesswork.
struct ReplyDecodingTests {
    @Test func anOpenURLReplyOfAnotherSignatureIsABusError() {
        let error = #expect(throws: CourierError.self) { try OpenURLReply([.boolean(true), .string("com.acme.todolist")]) }
        #expect(error?.code == .bus)
        #expect(error?.message.contains("'bs'") == true && error?.message.contains("'bsa{sv}'") == true)
    }

    @Test func anOpenURLReplyRoundTrips() throws {
        var reply = [String: DBusValue]()
        reply[CourierKey.state] = "active"
        let decoded = try OpenURLReply(OpenURLReply(handled: true, bundleID: "com.acme.todolist", reply: reply).body)
        #expect(decoded.handled && decoded.bundleID == "com.acme.todolist" && decoded.reply[CourierKey.state] == "active")
    }

    @Test func anAppReplyOfAnotherSignatureIsAppFailed() {
        let error = #expect(throws: CourierError.self) { try ApplicationOpenReply([.string("yes")]) }
        #expect(error?.code == .appFailed)
    }

    @Test func anOptionOfAnotherTypeIsRefusedNamingTheKey() {
        let options: [String: DBusValue] = ["timeout-ms": .string("soon")]
        let error = #expect(throws: CourierError.self) { try options.decode(CourierKey.timeoutMS) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.message.contains("'timeout-ms'") == true && error?.message.contains("'u'") == true)
        #expect(options[CourierKey.timeoutMS] == nil)
    }

    @Test func optionsAreWrittenWithTheirDeclaredTypes() {
        let options = [String: DBusValue](CourierKey.bundleID("com.acme.todolist"), CourierKey.timeoutMS(1500), CourierKey.background(true))
        #expect(options == ["bundle-id": .string("com.acme.todolist"), "timeout-ms": .uint32(1500), "background": .boolean(true)])
    }

    @Test func aStateChangeOfAnotherSignatureIsIgnored() {
        #expect(ApplicationStateChange([.string("com.acme.todolist"), .string("active")]) == nil)
        #expect(ApplicationStateChange([.string("com.acme.todolist"), .string("active"), .uint32(7)])?.pid == 7)
    }

    @Test func aBundleIDMapsToItsBusNameAndPathOrIsRefusedOnce() throws {
        let address = try ApplicationAddress(bundleID: "com.8bit.bitwarden")
        #expect(address.busName.rawValue == "com._8bit.bitwarden" && address.objectPath.rawValue == "/com/_8bit/bitwarden")
        #expect(ApplicationAddress.bundleID(ofBusName: "com._8bit.bitwarden") { [] } == "com.8bit.bitwarden")
        let error = #expect(throws: CourierError.self) { try ApplicationAddress(bundleID: "no dots") }
        #expect(error?.code == .invalidArguments)
    }
}
