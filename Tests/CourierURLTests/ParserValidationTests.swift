import CourierURL
import Testing

/// The parser refuses what RFC 3986 does not allow, and says where and what to do.
struct ParserValidationTests {
    @Test func spaceInQueryIsRefusedWithItsOffsetAndAdvice() {
        #expect {
            try URIReference("todolist://host?Quarterly Report")
        } throws: { error in
            let error = error as! URIError
            return error.offset == 25 && error.component == .query
                && error.description == "space at offset 25 is not allowed in a query; escape it as %20"
        }
    }

    @Test(arguments: [
        ("http://a/b c", 10, URIError.Code.disallowedCharacter),
        ("http://a/\u{0}", 9, .disallowedCharacter),
        ("http://a/\t", 9, .disallowedCharacter),
        ("http://a/\u{7F}", 9, .disallowedCharacter),
        ("http://a/é", 9, .nonASCII),
        ("http://a/%zz", 9, .invalidPercentEncoding),
        ("http://a/%4", 9, .invalidPercentEncoding),
        ("http://a?%", 9, .invalidPercentEncoding),
        (":nothing", 0, .emptyScheme),
        ("1abc:x", 4, .invalidScheme),
        ("a:b", -1, .disallowedCharacter),
        ("http://host:80a/", 14, .invalidPort),
        ("http://host:65536/", 12, .invalidPort),
        ("http://[::1/", 7, .unbalancedBracket),
        ("http://host]/", 11, .unbalancedBracket),
        ("http://a/[x]", 9, .unbalancedBracket),
        ("http://[1:2:3]/", 8, .invalidIPLiteral),
        ("http://[::1::2]/", 8, .invalidIPLiteral),
        ("http://[vz.x]/", 8, .invalidIPLiteral),
        ("http://a@b@c/", 10, .disallowedCharacter),
        ("x#a#b", 3, .disallowedCharacter),
        ("a\"b", 1, .disallowedCharacter),
        ("foo:bar/baz:1", -1, .disallowedCharacter),
        ("./a:b", -1, .disallowedCharacter),
        ("a:b/c:d", -1, .disallowedCharacter),
        ("ab:c", -1, .disallowedCharacter),
        ("x:y/z", -1, .disallowedCharacter),
        ("b:c:d", -1, .disallowedCharacter),
        ("-a:b", 2, .invalidScheme),
        ("a/b:c", -1, .disallowedCharacter),
    ])
    func invalidInputIsRefusedAtTheRightOffset(input: String, offset: Int, code: URIError.Code) {
        do {
            let parsed = try URIReference(input)
            // offset -1 marks inputs that are valid (kept here to pin the boundary).
            #expect(offset == -1, "\(input) parsed as \(parsed) but should fail at \(offset)")
        } catch {
            #expect(offset != -1, "\(input) failed: \(error)")
            #expect(error.offset == offset, "\(input): \(error)")
            #expect(error.code == code, "\(input): \(error)")
        }
    }

    @Test func colonInFirstSegmentOfRelativePathIsRefused() {
        #expect(throws: URIError.self) { try URIReference("1a:b") }
        #expect(throws: URIError.self) { try URIReference("%41:b") }
    }

    @Test func inputBeyondTheLimitIsRefused() throws {
        let long = "http://a/" + String(repeating: "a", count: 65 * 1024)
        #expect { try URIReference(long) } throws: { ($0 as! URIError).code == .tooLong }
        let small = URIParsingOptions(maximumLength: 10)
        #expect { try URIReference("http://a/bcdef", options: small) } throws: { ($0 as! URIError).code == .tooLong }
        _ = try URIReference("http://a/b", options: small)
    }

    @Test func schemesAllowDigitsPlusMinusDotAndCompareCaseInsensitively() throws {
        #expect(try URIReference("Web3+X-y.z:foo").scheme == "web3+x-y.z")
        #expect(try URIReference("TODOLIST://x").rawScheme == "TODOLIST")
        #expect(URIScheme.isValid("x-callback-url"))
        #expect(URIScheme.isValid("coap+tcp"))
        #expect(!URIScheme.isValid("3com"))
        #expect(!URIScheme.isValid(""))
        #expect(!URIScheme.isValid("todo list"))
        #expect(!URIScheme.isValid("todolist:"))
        #expect(try URIScheme(String("ToDoList")).name == "todolist")
    }

    @Test func allFivePathFormsParse() throws {
        #expect(try URIReference("http://a/b/c").path == "/b/c")  // path-abempty
        #expect(try URIReference("http://a").path == "")  // path-abempty, empty
        #expect(try URIReference("/b/c").path == "/b/c")  // path-absolute
        #expect(try URIReference("b/c:d").path == "b/c:d")  // path-noscheme
        #expect(try URIReference("mailto:a@b").path == "a@b")  // path-rootless
        #expect(try URIReference("?q").path == "")  // path-empty
        #expect(try URIReference("").path == "")
    }

    @Test func hostKindsAreRecognized() throws {
        #expect(try URIReference("http://192.0.2.1/").hostKind == .ipv4)
        #expect(try URIReference("http://192.0.2.01/").hostKind == .regName)  // leading zero: a name
        #expect(try URIReference("http://256.1.1.1/").hostKind == .regName)
        #expect(try URIReference("http://[::]/").hostKind == .ipv6)
        #expect(try URIReference("http://[::ffff:192.0.2.1]/").hostKind == .ipv6)
        #expect(try URIReference("http://[1:2:3:4:5:6:7:8]/").hostKind == .ipv6)
        #expect(try URIReference("http://[v1.fe80::a+en1]/").hostKind == .ipvFuture)
        #expect(try URIReference("file:///etc").host == "")
        #expect(throws: URIError.self) { try URIReference("http://[1:2:3:4:5:6:7:8:9]/") }
        #expect(throws: URIError.self) { try URIReference("http://[12345::]/") }
    }

    @Test func userAndPasswordSplitAtTheFirstColon() throws {
        let uri = try URIReference("ftp://me:se:cret@host/")
        #expect(uri.userinfo == "me:se:cret")
        #expect(uri.user == "me")
        #expect(uri.password == "se:cret")
        #expect(try URIReference("ftp://me@host/").password == nil)
    }

    @Test func emptyPortIsAllowedAndAbsent() throws {
        let uri = try URIReference("http://host:/")
        #expect(uri.rawPort == "")
        #expect(uri.port == nil)
    }

    @Test func decodedViewsAreStrictUTF8() throws {
        let uri = try URIReference("x:/caf%C3%A9?a+b%20c#%F0%9F%93%85")
        #expect(try uri.decoded(.path) == "/café")
        #expect(try uri.decoded(.query) == "a+b c")
        #expect(try uri.decoded(.query, plusAsSpace: true) == "a b c")
        #expect(try uri.decoded(.fragment) == "📅")
        #expect { try URIReference("x:?a%C3").decoded(.query) } throws: {
            let e = $0 as! URIError
            return e.code == .invalidUTF8 && e.offset == 4
        }
        #expect { try URIReference("x:?ab%C0%AF").decoded(.query) } throws: { ($0 as! URIError).offset == 5 }
        #expect(throws: URIError.self) { try URIReference("x:?%ED%A0%80").decoded(.query) }  // surrogate
    }

    @Test func queryItemsSplitAndDecode() throws {
        let uri = try URIReference("x:?a=1&b=two+words&c&d=%26&&e=")
        let items = try #require(try uri.queryItems())
        #expect(items == [
            URIQueryItem(name: "a", value: "1"), URIQueryItem(name: "b", value: "two+words"),
            URIQueryItem(name: "c", value: nil), URIQueryItem(name: "d", value: "&"), URIQueryItem(name: "e", value: ""),
        ])
        #expect(try uri.queryValue("b", plusAsSpace: true) == "two words")
        #expect(try URIReference("x:").queryItems() == nil)
    }
}

extension ParserValidationTests {
    @Test func rawComponentViewsMatchTheSubstrings() throws {
        for text in ["ftp://me:se:cret@[::1]:21/a/b?x=1#f", "mailto:a@b", "//h?q", "", "a/b#", "http://h:/"] {
            let uri = try URIReference(text)
            uri.withRawComponents { c in
                func same(_ view: UnsafeBufferPointer<UInt8>?, _ sub: Substring?) -> Bool {
                    view.map { Array($0) } == sub.map { Array($0.utf8) }
                }
                #expect(same(c.scheme, uri.rawScheme))
                #expect(same(c.userinfo, uri.userinfo))
                #expect(same(c.user, uri.user))
                #expect(same(c.password, uri.password))
                #expect(same(c.host, uri.host))
                #expect(same(c.port, uri.rawPort))
                #expect(same(c.path, uri.path))
                #expect(same(c.query, uri.query))
                #expect(same(c.fragment, uri.fragment))
            }
        }
    }
}
