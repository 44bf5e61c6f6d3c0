import CourierURL
import Testing

/// The examples printed in RFC 3986 itself.
struct RFC3986ExampleTests {
    /// §1.1.2: every example URI parses, with its scheme.
    @Test(arguments: [
        ("ftp://ftp.is.co.za/rfc/rfc1808.txt", "ftp"),
        ("http://www.ietf.org/rfc/rfc2396.txt", "http"),
        ("ldap://[2001:db8::7]/c=GB?objectClass?one", "ldap"),
        ("mailto:John.Doe@example.com", "mailto"),
        ("news:comp.infosystems.www.servers.unix", "news"),
        ("tel:+1-816-555-1212", "tel"),
        ("telnet://192.0.2.16:80/", "telnet"),
        ("urn:oasis:names:specification:docbook:dtd:xml:4.1.2", "urn"),
    ])
    func section1_1_2ExamplesParse(uri: String, scheme: String) throws {
        let parsed = try URI(uri)
        #expect(parsed.scheme == scheme)
        #expect(parsed.string == uri)
    }

    @Test func ldapExampleHasIPv6HostAndQuery() throws {
        let uri = try URIReference("ldap://[2001:db8::7]/c=GB?objectClass?one")
        #expect(uri.host == "[2001:db8::7]")
        #expect(uri.hostKind == .ipv6)
        #expect(uri.path == "/c=GB")
        #expect(uri.query == "objectClass?one")
    }

    @Test func telnetExampleHasIPv4HostAndPort() throws {
        let uri = try URIReference("telnet://192.0.2.16:80/")
        #expect(uri.hostKind == .ipv4)
        #expect(uri.port == 80)
        #expect(uri.path == "/")
    }

    /// §3: the two annotated examples.
    @Test func section3ComponentsAreSplitAsAnnotated() throws {
        let foo = try URIReference("foo://example.com:8042/over/there?name=ferret#nose")
        #expect(foo.scheme == "foo")
        #expect(foo.authority == "example.com:8042")
        #expect(foo.host == "example.com")
        #expect(foo.port == 8042)
        #expect(foo.path == "/over/there")
        #expect(foo.query == "name=ferret")
        #expect(foo.fragment == "nose")

        let urn = try URIReference("urn:example:animal:ferret:nose")
        #expect(urn.scheme == "urn")
        #expect(urn.authority == nil)
        #expect(urn.path == "example:animal:ferret:nose")
        #expect(urn.query == nil)
        #expect(urn.fragment == nil)
    }

    static let base = "http://a/b/c/d;p?q"

    /// §5.4.1 normal examples.
    @Test(arguments: [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"),
    ])
    func section5_4_1NormalExamplesResolve(reference: String, expected: String) throws {
        let base = try URI(Self.base)
        #expect(try base.resolving(reference).string == expected)
    }

    /// §5.4.2 abnormal examples (strict parser: "http:g" keeps its own scheme).
    @Test(arguments: [
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"),
        ("/./g", "http://a/g"), ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),
    ])
    func section5_4_2AbnormalExamplesResolve(reference: String, expected: String) throws {
        let base = try URI(Self.base)
        #expect(try base.resolving(reference).string == expected)
    }

    /// §5.2.4's worked examples of remove_dot_segments.
    @Test func removeDotSegmentsMatchesTheWorkedExamples() {
        #expect(URIReference.removeDotSegments("/a/b/c/./../../g") == "/a/g")
        #expect(URIReference.removeDotSegments("mid/content=5/../6") == "mid/6")
    }

    /// §6.2.2: case, percent-encoding and dot segments.
    @Test func normalizationFollowsSection6_2_2() throws {
        #expect(try URIReference("HTTP://www.EXAMPLE.com/").normalized().string == "http://www.example.com/")
        #expect(try URIReference("example://a/b/c/%7Bfoo%7D").normalized().string == "example://a/b/c/%7Bfoo%7D")
        #expect(try URIReference("eXAMPLE://a/./b/../b/%63/%7bfoo%7d").normalized().string == "example://a/b/c/%7Bfoo%7D")
        #expect(try URIReference("http://example.com/%7Esmith/%2f").normalized().string == "http://example.com/~smith/%2F")
        #expect(try URIReference("http://%41b.example/").normalized().string == "http://ab.example/")
        #expect(try URIReference("../a/./b").normalized().string == "../a/./b")
    }
}

extension RFC3986ExampleTests {
    @Test func mergeWithAnEmptyBasePathAddsASlash() throws {
        #expect(try URI("http://a").resolving("g").string == "http://a/g")
        #expect(try URI("http://a?q").resolving("").string == "http://a?q")
        #expect(try URI("a:b/c").resolving("../..//d").string == "a:/.//d")  // no authority read back
    }

    @Test func normalizationLowercasesIPLiteralsAndKeepsPorts() throws {
        #expect(try URIReference("HTTP://[2001:DB8::A]:8080/%7E").normalized().string == "http://[2001:db8::a]:8080/~")
        #expect(try URIReference("x://%7eMe:%3a@H/").normalized().string == "x://~Me:%3A@h/")
    }

    @Test func nonASCIIIsRefusedWithItsEscape() {
        #expect { try URIReference("todolist://x?Résumé") } throws: {
            let error = $0 as! URIError
            return error.code == .nonASCII && error.offset == 14
                && error.description == "non-ASCII byte 0xC3 at offset 14 is not allowed in a query; percent-encode the UTF-8 bytes of the character (this one as %C3)"
        }
    }
}
