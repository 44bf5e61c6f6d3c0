import CourierProtocol
import DBus
import Testing

/// The portal's request path, worked out before asking so the `Response` is not missed: the
/// specification's `/org/freedesktop/portal/desktop/request/SENDER/TOKEN`, SENDER the caller's
/// unique name without its colon and with `_` for each `.`.
struct FreedesktopPortalTests {
    @Test func theRequestPathIsTheOneThePortalGives() {
        #expect(FreedesktopPortal.requestPath(sender: ":1.42", token: "courier1f")?.rawValue == "/org/freedesktop/portal/desktop/request/1_42/courier1f")
        #expect(FreedesktopPortal.requestPath(sender: ":1.0.7", token: "t")?.rawValue == "/org/freedesktop/portal/desktop/request/1_0_7/t")
    }

    @Test func aTokenThatIsNoPathElementGivesNoPath() {
        #expect(FreedesktopPortal.requestPath(sender: ":1.42", token: "a.b") == nil)
        #expect(FreedesktopPortal.requestPath(sender: ":1.42", token: "") == nil)
    }
}
