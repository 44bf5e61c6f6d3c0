import CourierIRI
import CourierURL
import Foundation
import Testing
import URIParserOracle

/// RFC 3987 section 3.1 (IRI → URI) and 3.2 (URI → display form), with libidn2 for host names.
@Suite struct IRIMappingTests {
    func uri(_ text: String, dns: ((String) -> Bool)? = nil) throws -> String {
        try IRI.uri(from: text, domainNameHost: dns ?? IRI.isDomainNameScheme).uri.string
    }

    func refusal(_ text: String, dns: ((String) -> Bool)? = nil) -> URIError? {
        do {
            _ = try IRI.uri(from: text, domainNameHost: dns ?? IRI.isDomainNameScheme)
            return nil
        } catch {
            return error
        }
    }

    @Test func aURIIsItsOwnIRI() throws {
        for text in ["todolist://www.acme.com?Quarterly%20Report#200806231300", "HTTP://A/b%C3%A9", "mailto:a@b", "../a?b"] {
            let conversion = try IRI.uri(from: text)
            #expect(conversion.uri.string == text)
            #expect(!conversion.isConverted)
        }
    }

    @Test func charactersOutsideASCIIArePercentEncodedUTF8() throws {
        #expect(try uri("todolist://www.acme.com?Café") == "todolist://www.acme.com?Caf%C3%A9")
        #expect(try uri("todolist://www.acme.com?Quarterly%20Café#today") == "todolist://www.acme.com?Quarterly%20Caf%C3%A9#today")
        #expect(try uri("x-app:/ünï/😀#frägment") == "x-app:/%C3%BCn%C3%AF/%F0%9F%98%80#fr%C3%A4gment")
        #expect(try uri("x-app://üser:pä@h/") == "x-app://%C3%BCser:p%C3%A4@h/")
        // Not normalized: the bytes given are the bytes the app gets (section 3.1 step 1: the
        // text is already in a Unicode encoding), as a browser does with a path.
        #expect(try uri("x-app:/e\u{301}") == "x-app:/e%CC%81")
    }

    @Test func hostNamesOfDNSSchemesGoThroughIDNA() throws {
        #expect(try uri("https://例え.jp/パス?q=値") == "https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9?q=%E5%80%A4")
        #expect(try uri("http://Bücher.DE:8080/") == "http://xn--bcher-kva.de:8080/")
        #expect(try uri("ws://user@例え。jp/") == "ws://user@xn--r8jz45g.jp/", "the ideographic full stop separates labels")
        // Non-transitional: ß stays ß (transitional processing would look up fass.de).
        #expect(try uri("http://faß.de/") == "http://xn--fa-hia.de/")
        // A scheme whose host is not declared a DNS name: its host is percent-encoded.
        #expect(try uri("todolist://例え.jp?x") == "todolist://%E4%BE%8B%E3%81%88.jp?x")
        #expect(try uri("todolist://例え.jp?x", dns: { $0 == "todolist" }) == "todolist://xn--r8jz45g.jp?x")
        // The domains of a mailto address, not its local part.
        #expect(try uri("mailto:José@例え.jp,b@bücher.de?subject=Café") == "mailto:Jos%C3%A9@xn--r8jz45g.jp,b@xn--bcher-kva.de?subject=Caf%C3%A9")
    }

    @Test func libidn2RefusesWithItsReason() throws {
        // CheckBidi: a left-to-right label with a right-to-left letter.
        let bidi = try #require(refusal("http://a\u{5D0}.com/"))
        #expect(bidi.code == .invalidDomainName)
        #expect(bidi.offset == 7)
        #expect(bidi.component == .host)
        #expect(bidi.message.contains("libidn2"), "\(bidi)")
        // CheckJoiners: a zero-width joiner with no virama before it.
        let joiner = try #require(refusal("https://a\u{200D}b.example/"))
        #expect(joiner.code == .invalidDomainName, "\(joiner)")
    }

    @Test func uncleanCharactersAreRefusedNotEncoded() throws {
        for (text, offset) in [("todolist://x?a\u{202E}b", 14), ("todolist://x?é\u{85}", 15), ("https://例え.jp/\u{2066}", 18), ("todolist://x?é\u{200F}", 15)] {
            let error = try #require(refusal(text))
            #expect(error.code == .uncleanCharacter, "\(text.debugDescription): \(error)")
            #expect(error.offset == offset, "\(text.debugDescription): \(error)")
        }
    }

    @Test func onlyIRICharactersAreEncoded() throws {
        let nonCharacter = try #require(refusal("todolist://x?a\u{FFFE}"))
        #expect(nonCharacter.code == .notIRICharacter)
        #expect(nonCharacter.offset == 14)
        #expect(nonCharacter.advice.contains("%EF%BF%BE"))
        #expect(refusal("todolist://x?\u{FFFD}")?.code == .notIRICharacter)
        // iprivate: in a query only.
        #expect(try uri("todolist://x?\u{E000}") == "todolist://x?%EE%80%80")
        #expect(refusal("todolist://x/\u{E000}")?.code == .notIRICharacter)
    }

    @Test func whatNoMappingMendsIsRefusedAtItsOffsetInTheTextAsGiven() throws {
        let space = try #require(refusal("todolist://www.acme.com?Café Report"))
        #expect(space.code == .disallowedCharacter)
        #expect(space.offset == 29, "\(space)")
        #expect(space.message.contains("offset 29"), "\(space)")
        #expect(IRI.suggestion(for: "todolist://www.acme.com?Café Report") == "todolist://www.acme.com?Caf%C3%A9%20Report")
        let escape = try #require(refusal("todolist://ü?100%"))
        #expect(escape.code == .invalidPercentEncoding)
        #expect(escape.offset == 17)
        #expect(IRI.suggestion(for: "todolist://ü?100%") == "todolist://%C3%BC?100%25")
        #expect(IRI.suggestion(for: "todolist://www.acme.com?Quarterly Report") == "todolist://www.acme.com?Quarterly%20Report")
        let port = try #require(refusal("http://例え.jp:99999/"))
        #expect(port.code == .invalidPort)
        #expect(port.offset == 17, "\(port)")
        #expect(IRI.suggestion(for: "http://例え.jp:99999/") == nil)
        #expect(IRI.suggestion(for: "todolist://x?a\tb") == nil, "a control character is refused, not mended")
        #expect(IRI.suggestion(for: "todolist://x?ok") == nil, "nothing to mend")
    }

    @Test func theDisplayFormShowsCleanCharactersAndUnicodeHosts() throws {
        let uri = try URIReference("https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9?q=%E5%80%A4%20x")
        #expect(IRI.displayForm(of: uri) == "https://例え.jp/パス?q=値%20x")
        // Kept encoded: ASCII, a lone byte, bidirectional formatting, a noncharacter, an
        // uppercase A-label (mapping back would lowercase it), a host of a non-DNS scheme's label.
        let kept = try URIReference("http://XN--R8JZ45G.jp/%41%C3%E2%80%AE%EF%BF%BE%c3%a9")
        #expect(IRI.displayForm(of: kept) == kept.string)
        // A mailto domain stays as written (mapping a decoded one back would convert it with IDNA).
        let mail = try URIReference("mailto:Jos%C3%A9@%E4%BE%8B.jp")
        #expect(IRI.displayForm(of: mail) == "mailto:José@%E4%BE%8B.jp")
    }

    /// Section 3.2's promise, on the oracle's corpus with characters outside ASCII mixed in:
    /// URI → display form → URI gives the URI back, and every mapped URI is a URI the strict
    /// parser accepts.
    @Test func displayFormRoundTrips() throws {
        let extras = ["é", "例え", "パス", "😀", "\u{E000}", "ß", "Ω", "\u{301}", "%C3%A9", "%E2%80%AE", "%F0%9F%98%80", "%FF"]
        var generator = SplitMix64(state: 0x1A1)
        var checked = 0
        for base in URLCorpus.generate(count: 3_000, seed: 0x1A1) + URLCorpus.edgeCases {
            var text = base
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let bytes = text.utf8.count
                let at = Int.random(in: 0...bytes, using: &generator)
                let utf8 = Array(text.utf8)
                text = String(decoding: utf8[..<at], as: UTF8.self) + extras.randomElement(using: &generator)! + String(decoding: utf8[at...], as: UTF8.self)
            }
            guard let conversion = try? IRI.uri(from: text) else { continue }
            #expect((try? URIReference(conversion.uri.string)) != nil)
            let display = IRI.displayForm(of: conversion.uri)
            let again = try? IRI.uri(from: display).uri
            #expect(again == conversion.uri, "\(text.debugDescription) → \(conversion.uri) → \(display.debugDescription) → \(again?.string ?? "refused")")
            checked += 1
        }
        #expect(checked > 1_000)
    }
}
