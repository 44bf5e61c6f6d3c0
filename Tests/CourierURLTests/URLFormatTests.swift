import CourierURL
import Testing

/// URL formats: validation that names the component and the reason.
struct URLFormatTests {
    @Test func validationNamesTheComponentAndTheReason() throws {
        let format = URLFormat(
            schemes: [try URIScheme("x-app")],
            components: [.userinfo: URLComponentRule(.forbidden), .path: URLComponentRule(.required, pattern: "/[a-z]+")],
            queryItems: [
                "n": URLComponentRule(.required, decoding: .form, type: .integer(minimum: 0, maximum: 10)),
                "q": URLComponentRule(decoding: .form, allowsBlank: false),
            ],
            allowsOtherQueryItems: false)
        func violation(_ url: String) throws -> URLFormatViolation? {
            let uri = try URIReference(url)
            do {
                try format.validate(uri)
                return nil
            } catch {
                return error
            }
        }
        #expect(try violation("x-app:/abc?n=3&q=a+b") == nil)
        #expect(try format.decode(URIReference("x-app:/abc?n=3&q=a+b"))[queryItem: "q"] == .text("a b"))
        #expect(try violation("other:/abc?n=1")?.component == .scheme)
        #expect(try violation("x-app://me@h/abc?n=1")?.component == .userinfo)
        #expect(try violation("x-app:?n=1")?.reason == "the path is required but absent")
        #expect(try violation("x-app:/ABC?n=1")?.reason.contains("does not match the pattern") == true)
        #expect(try violation("x-app:/abc")?.queryItem == "n")
        #expect(try violation("x-app:/abc?n=11")?.reason == "the query item 'n' 11 is above the maximum 10")
        #expect(try violation("x-app:/abc?n=x")?.reason.contains("not a decimal integer") == true)
        #expect(try violation("x-app:/abc?n=1&n=2")?.reason.contains("more than once") == true)
        #expect(try violation("x-app:/abc?n=1&z=2")?.reason.contains("not part of this URL format") == true)
        #expect(try violation("x-app:/abc?n=1&q=+")?.reason.contains("only white space") == true)
        let offset = try violation("x-app:/abc?n=%FF")?.offset
        #expect(offset == 13)
    }
}
