@testable import CourierBroker
import CourierURL
import Testing

/// Where `URLTextCheck` finds an unclean character: the component, the character, and the byte
/// offset of the text that encodes it in the URL as written.
@Suite("URLTextCheck")
struct URLTextCheckTests {
    func finding(_ url: String) throws -> URLTextCheck.Finding? {
        URLTextCheck.firstUnclean(in: try URIReference(url))
    }

    @Test func cleanURLsPass() throws {
        for url in ["todolist://www.acme.com?Quarterly%20Report#200806231300", "todolist://h/%C3%A9t%C3%A9?%F0%9F%93%9D",
                    "x:%FF%FE", "todolist://www.acme.com?100%25"] {
            #expect(try finding(url) == nil, "\(url)")
        }
    }

    @Test func findsTheFirstUncleanCharacterWhereItIsWritten() throws {
        let nul = try #require(try finding("todolist://www.acme.com?a%00b"))
        #expect(nul.component == .query && nul.offset == 25 && nul.source == "%00" && nul.violation.scalar == "\u{0}")
        let del = try #require(try finding("t://h/ok/%7F"))
        #expect(del.component == .path && del.offset == 9 && del.source == "%7F")
        let rlo = try #require(try finding("t://h?x#ab%e2%80%aecd"))
        #expect(rlo.component == .fragment && rlo.offset == 10 && rlo.source == "%e2%80%ae" && rlo.violation.offset == 2)
        let user = try #require(try finding("t://a%0Db@h"))
        #expect(user.component == .userinfo && user.offset == 5)
        // After a malformed sequence, scalars and offsets stay in step.
        let after = try #require(try finding("t://h?%FF%1B"))
        #expect(after.offset == 9 && after.violation.offset == 1)
    }
}
