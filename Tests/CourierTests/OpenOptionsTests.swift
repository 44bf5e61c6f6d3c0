@testable import Courier
import CourierProtocol
import DBus
import Testing

/// What an app sends with `openURL` and reads back from `CheckIn`: only what was set travels, and
/// what arrives of the wrong type or not at all gives the defaults, never a crash.
@Suite("OpenOptions and ApplicationLaunchOptions")
struct OpenOptionsTests {
    @Test func onlyTheOptionsSetAreSent() {
        #expect(OpenOptions().request.dictionary.isEmpty)
        let all = OpenOptions(bundleID: "com.acme.todolist", annotation: .string("note"), background: true, activationToken: "tok",
                              timeout: .milliseconds(1500), dryRun: true, relayed: true).request.dictionary
        #expect(all[CourierKey.bundleID.name] == .string("com.acme.todolist"))
        #expect(all[CourierKey.background.name] == .boolean(true))
        #expect(all[CourierKey.activationToken.name] == .string("tok"))
        #expect(all[CourierKey.timeoutMS.name] == .uint32(1500))
        #expect(all[CourierKey.dryRun.name] == .boolean(true))
        #expect(all[CourierKey.relayed.name] == .boolean(true))
        #expect(all.count == 7)
    }

    @Test func aDeadlineIsSentInWholeMillisecondsAndClamped() {
        #expect(OpenOptions(timeout: .zero).request.dictionary[CourierKey.timeoutMS.name] == .uint32(0))
        #expect(OpenOptions(timeout: .microseconds(2999)).request.dictionary[CourierKey.timeoutMS.name] == .uint32(2))
        #expect(OpenOptions(timeout: .seconds(10_000_000)).request.dictionary[CourierKey.timeoutMS.name] == .uint32(.max))
        #expect(OpenOptions(timeout: .seconds(-1)).request.dictionary[CourierKey.timeoutMS.name] == .uint32(0))
    }

    @Test func launchOptionsReadWhatCheckInReturned() {
        let options = ApplicationLaunchOptions(dictionary: [
            CourierKey.url.name: .string("todolist://www.acme.com?Task"),
            CourierKey.sourceApplication.name: .string("com.acme.mail"),
            CourierKey.annotation.name: .variant(.string("a")),
            CourierKey.background.name: .boolean(true),
            CourierKey.inbox.name: .boolean(true),
        ])
        #expect(options.url == "todolist://www.acme.com?Task")
        #expect(options.sourceApplication == "com.acme.mail")
        #expect(options.annotation?.stringValue == "a")
        #expect(options.background && options.inbox)
    }

    @Test func launchOptionsOfTheWrongTypeOrMissingGiveTheDefaults() {
        let options = ApplicationLaunchOptions(dictionary: [
            CourierKey.url.name: .uint32(7),
            CourierKey.sourceApplication.name: .boolean(true),
            CourierKey.background.name: .string("yes"),
            CourierKey.inbox.name: .string("true"),
        ])
        #expect(options == ApplicationLaunchOptions())
        #expect(ApplicationLaunchOptions(dictionary: [:]) == ApplicationLaunchOptions())
    }

    @Test func aValueIsReadThroughItsVariantsAndIsNilAsAnotherType() {
        let nested = CourierValue(.variant(.variant(.string("deep"))))
        #expect(nested.stringValue == "deep")
        #expect(nested.int32Value == nil)
        let dictionary = CourierValue.dictionary(["n": .int64(-3), "list": .strings(["a", "b"]), "raw": .bytes([0, 255])])
        #expect(dictionary.dictionaryValue?["n"]?.int64Value == -3)
        #expect(dictionary.dictionaryValue?["list"]?.stringArrayValue == ["a", "b"])
        #expect(dictionary.dictionaryValue?["raw"]?.bytesValue == [0, 255])
        #expect(CourierValue.string("x").dictionaryValue == nil)
    }
}
