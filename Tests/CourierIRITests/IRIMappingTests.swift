import CourierIRI
@_spi(Testing) import CourierURL
import Foundation
import Testing
import URIParserOracle

/// RFC 3987 section 3.1 (IRI → URI) and 3.2 (URI → display form), with libidn2 for host names.
@Suite struct IRIMappingTests {
    /// The URI `text` maps to; its layout (moved from the text's, or parsed) must be the one the
    /// full parser gives its string.
    func uri(_ text: String, dns: ((String) -> Bool)? = nil) throws -> String {
        let uri = try IRI.uri(from: text, domainNameHost: dns ?? IRI.isDomainNameScheme).uri
        #expect(URIReference.layoutAgreesWithFullParser(uri), "\(text.debugDescription) → \(uri)")
        return uri.string
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

    /// Section 3.1 written plainly, for the scalars the mapping encodes: each one outside ASCII
    /// becomes its UTF-8 bytes percent-encoded (uppercase hex); ASCII stays as it is.
    func plainly(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                out.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 { out += String(format: "%%%02X", byte) }
            }
        }
        return out
    }

    /// The mapping copies ASCII eight bytes at a time: characters outside ASCII at every position
    /// of a word, in runs and alone, at the start and at the end.
    @Test func charactersOutsideASCIIAtEveryPositionOfAWord() throws {
        for character in ["é", "例", "😀", "e\u{301}", "éé", "ü😀例"] {
            for before in 0..<18 {
                for after in [0, 1, 7, 8, 9, 16, 17] {
                    let a = String(repeating: "a", count: before), b = String(repeating: "b", count: after)
                    for text in ["x-app:/\(a)\(character)\(b)?\(character)#\(character)", "todolist://\(a)\(character)\(b)", "x-app:\(a)\(character)\(b)\(character)"] {
                        #expect(try uri(text) == plainly(text), "\(text.debugDescription)")
                    }
                }
            }
        }
    }

    /// The corpus with clean characters outside ASCII inserted anywhere, no host a DNS name:
    /// the mapping accepts exactly what the parser accepts once written plainly, with the same
    /// URI, and refuses the rest for the same reason at an offset inside the text.
    @Test func agreesWithThePlainRuleOnTheMutatedCorpus() throws {
        let extras = ["é", "例え", "😀", "ß", "\u{301}", "Ω", "\u{A0}", "\u{2010}", "%", "%C3", " ", "[", "]", ":", "@", "?", "#", "/"]
        var generator = SplitMix64(state: 0x5EED)
        var mapped = 0
        for base in URLCorpus.generate(count: 2_000, seed: 0x5EED) + URLCorpus.edgeCases {
            var scalars = Array(base.unicodeScalars)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                scalars.insert(contentsOf: extras.randomElement(using: &generator)!.unicodeScalars, at: Int.random(in: 0...scalars.count, using: &generator))
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            let expected: Result<URIReference, URIError> = Result { () throws(URIError) in try URIReference(plainly(text)) }
            let got: Result<URIReference, URIError> = Result { () throws(URIError) in try IRI.uri(from: text, domainNameHost: { _ in false }).uri }
            switch (expected, got) {
            case (.success(let expected), .success(let got)):
                #expect(expected == got, "\(text.debugDescription)")
                #expect(URIReference.layoutAgreesWithFullParser(got), "\(text.debugDescription)")
                mapped += 1
            case (.failure(let expected), .failure(let got)):
                #expect(expected.code == got.code, "\(text.debugDescription): \(got)")
                #expect(got.offset >= 0 && got.offset <= text.utf8.count, "\(text.debugDescription): \(got)")
            default:
                Issue.record("\(text.debugDescription): the plain rule gives \(expected), the mapping \(got)")
            }
        }
        #expect(mapped > 500)
    }

    /// The fast path reads the text once, bytes outside ASCII included, and the URI's layout is
    /// moved from the text's (`uri` checks it against the full parser): a character outside ASCII
    /// at offset 0 (no scheme: the general mapping), at the end, on each side of the 32-byte
    /// blocks, in each component; a host name IDNA converts takes the general mapping.
    @Test func theTextIsReadOnceAtEveryBoundary() throws {
        #expect(try uri("é/p") == "%C3%A9/p")
        #expect(try uri("x-app://h/pé") == "x-app://h/p%C3%A9")
        for offset in [30, 31, 32, 33, 63, 64, 65] {
            let text = "x-app:" + String(repeating: "a", count: offset - 6) + "é" + String(repeating: "b", count: 40)
            #expect(try uri(text) == plainly(text), "at \(offset)")
            let query = "x-app://h?" + String(repeating: "a", count: offset - 10) + "例" + "#😀"
            #expect(try uri(query) == plainly(query), "at \(offset)")
        }
        let components = "x-app://üser:pä@hö:80/pä?qé#fé"
        #expect(try uri(components) == plainly(components))
        #expect(try uri("https://例え.jp/é") == "https://xn--r8jz45g.jp/%C3%A9")
        #expect(try uri("mailto:zoë@例え.jp?subject=Café") == "mailto:zo%C3%AB@xn--r8jz45g.jp?subject=Caf%C3%A9")
        #expect(try uri("x-app://[::1]:8080/é") == "x-app://[::1]:8080/%C3%A9")
        // A refusal on this route names the component, at the offset in the text as given.
        let refused: [(String, URIComponent, Int)] = [
            ("x-app://ü\u{202E}@h/", .userinfo, 10), ("x-app://hé\u{202E}/", .host, 11), ("x-app://h/é\u{202E}", .path, 12),
            ("x-app://h/?é\u{202E}", .query, 13), ("x-app://h/#é\u{202E}", .fragment, 13), ("x-app://h/\u{E000}?\u{E000}", .path, 10),
        ]
        for (text, component, offset) in refused {
            let error = try #require(refusal(text), "\(text.debugDescription)")
            #expect(error.component == component && error.offset == offset, "\(text.debugDescription): \(error)")
        }
    }

    /// A `String` made from bytes that are not UTF-8 holds U+FFFD where they stood: a
    /// noncharacter-like special the mapping refuses there rather than encode.
    @Test func bytesThatAreNotUTF8AreRefusedWhereTheyStood() throws {
        for (bytes, offset) in [([0xC3, 0x28], 14), ([0x80], 14), ([0xED, 0xA0, 0x80], 14), ([0xF0, 0x9F, 0x98], 14), ([0xFF], 14)] as [([UInt8], Int)] {
            let text = String(decoding: Array("todolist://x?a".utf8) + bytes + Array("é".utf8), as: UTF8.self)
            let error = try #require(refusal(text))
            #expect(error.code == .notIRICharacter, "\(bytes): \(error)")
            #expect(error.offset == offset, "\(bytes): \(error)")
            #expect(error.message.contains("U+FFFD"))
        }
        let atTheEnd = String(decoding: Array("x-app:/é".utf8) + [0xE2, 0x82], as: UTF8.self)
        #expect(refusal(atTheEnd)?.offset == 9)
    }

    /// A `%` is ASCII, left to the parser: escapes next to mapped characters pass, and a bad one is
    /// refused at its offset in the text as given, with the URL that would be accepted.
    @Test func percentSignsBesideCharactersOutsideASCII() throws {
        #expect(try uri("todolist://x?%C3%A9é%25é") == "todolist://x?%C3%A9%C3%A9%25%C3%A9")
        for (text, offset, accepted) in [
            ("todolist://x?100%é", 16, "todolist://x?100%25%C3%A9"), ("todolist://x?%é", 13, "todolist://x?%25%C3%A9"),
            ("todolist://x?é%", 15, "todolist://x?%C3%A9%25"), ("http://[::1]/%C3%A9é%zz", 21, "http://[::1]/%C3%A9%C3%A9%25zz"),
        ] {
            let error = try #require(refusal(text))
            #expect(error.code == .invalidPercentEncoding, "\(text): \(error)")
            #expect(error.offset == offset, "\(text): \(error)")
            #expect(error.message.contains("offset \(offset)"), "\(text): \(error)")
            #expect(IRI.suggestion(for: text) == accepted)
        }
    }

    /// An IP literal is never a DNS name: beside it, characters are encoded as anywhere; inside it,
    /// a DNS scheme's host goes to IDNA (which refuses it) and another scheme's to the parser.
    @Test func ipLiteralHosts() throws {
        #expect(try uri("http://[::1]:8080/パス?q=é") == "http://[::1]:8080/%E3%83%91%E3%82%B9?q=%C3%A9")
        #expect(try uri("ldap://[2001:db8::7]/c=GB?é") == "ldap://[2001:db8::7]/c=GB?%C3%A9")
        #expect(try uri("http://u:é@[::1]/") == "http://u:%C3%A9@[::1]/")
        let dns = try #require(refusal("http://[::1é]/"))
        #expect(dns.code == .invalidDomainName)
        #expect(dns.offset == 7)
        let literal = try #require(refusal("todolist://[::1é]/"))
        #expect(literal.code == .invalidIPLiteral)
        #expect(literal.offset == 12)
    }

    /// An error the parser finds after what the mapping converted is told where it stands in the
    /// text as given: after escapes, after an IDNA host, in a port.
    @Test func errorsAfterConversionsAreToldInTheTextAsGiven() throws {
        for (text, code, offset) in [
            ("todolist://é:80é/", URIError.Code.invalidPort, 16), ("todolist://h:8é/", .invalidPort, 14), ("http://例え.jp:8é/", .invalidPort, 18),
            ("x-app:/é é", .disallowedCharacter, 9), ("é:foo", .invalidScheme, 2),
        ] {
            let error = try #require(refusal(text))
            #expect(error.code == code, "\(text): \(error)")
            #expect(error.offset == offset, "\(text): \(error)")
        }
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
