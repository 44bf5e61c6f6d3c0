import Foundation
import Testing
@testable import CourierManifest

/// The direct XML parser must read what Foundation reads, value for value.
@Suite struct XMLPropertyListParserTests {
    func foundation(_ text: String) throws -> PropertyListValue? {
        PropertyListValue(foundation: try PropertyListSerialization.propertyList(from: Data(text.utf8), options: [], format: nil))
    }

    @Test func agreesWithFoundationOnRealManifests() throws {
        var texts = [realWorldInfoPlist]
        for name in try FileManager.default.contentsOfDirectory(atPath: schemesFolder) where name.hasSuffix(".plist") {
            texts.append(try String(contentsOfFile: schemesFolder + "/" + name, encoding: .utf8))
        }
        for text in texts {
            let direct = try XMLPropertyListParser.parse(Array(text.utf8))
            #expect(direct == (try foundation(text)))
        }
    }

    @Test func decodesEntitiesCDATAAndEveryValueType() throws {
        let text = plist("""
            <!-- a comment -->
            <key>s</key><string>a &lt;b&gt; &amp; &quot;c&quot; &#233;&#x263A; <![CDATA[<raw> & ]]>end</string>
            <key>e</key><string/>
            <key>i</key><integer>-42</integer>
            <key>r</key><real>2.5</real>
            <key>t</key><true/>
            <key>f</key><false/>
            <key>d</key><date>2008-06-23T13:00:00Z</date>
            <key>b</key><data>
                AAEC
            </data>
            <key>a</key><array><string>x</string><dict/><array/></array>
            """)
        let value = try XMLPropertyListParser.parse(Array(text.utf8))
        #expect(value == (try foundation(text)))
        guard case .dictionary(let d) = value else { Issue.record("not a dict"); return }
        #expect(d["s"] == .string("a <b> & \"c\" é☺ <raw> & end"))
        #expect(d["i"] == .integer(-42))
        #expect(d["b"] == .data(Data([0, 1, 2])))
    }

    @Test(arguments: [
        "<plist><dict><key>a</key></dict></plist>",
        "<plist><dict><string>a</string></dict></plist>",
        "<plist><foo/></plist>",
        "<plist><string>a</plist>",
        "<plist><integer>1.5</integer></plist>",
        "<dict></dict>",
        "<plist><string>&bogus;</string></plist>",
        "<plist><string>a</string></plist>trailing",
    ])
    func rejectsWhatIsNotAPropertyList(_ text: String) {
        #expect(throws: XMLPropertyListParser.Failure.self) { try XMLPropertyListParser.parse(Array(text.utf8)) }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let text = "<plist>" + String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000) + "</plist>"
        #expect(throws: XMLPropertyListParser.Failure.self) { try XMLPropertyListParser.parse(Array(text.utf8)) }
        let r = ManifestLoader().decode(Array(text.utf8), path: "/x.plist")
        #expect(r.codes() == [.notPropertyList])
    }

    @Test func errorsCarryTheLine() {
        let r = parse("<?xml version=\"1.0\"?>\n<plist>\n<dict>\n<key>a</key>\n<wrong/>\n</dict></plist>")
        #expect(r.codes() == [.notPropertyList])
        #expect(r.diagnostics[0].message.contains("line 5"))
    }
}

/// Mutated manifests must give a value or an error, never a trap (the broker loads untrusted files).
@Suite struct XMLPropertyListParserRobustnessTests {
    @Test func mutatedManifestsNeverCrashTheLoader() {
        let seed = Array(realWorldInfoPlist.utf8)
        let alphabet = Array("<>/&;#x![]-?=\"' \n\0\u{7F}abcdikelrstuy0123456789".utf8) + [0xC3, 0xFF, 0xE2]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let loader = ManifestLoader()
        for _ in 0..<500 {
            var bytes = seed
            for _ in 0..<(1 + next(4)) {
                switch next(4) {
                case 0: bytes[next(bytes.count)] = alphabet[next(alphabet.count)]
                case 1: bytes.insert(alphabet[next(alphabet.count)], at: next(bytes.count))
                case 2: bytes.removeSubrange(next(bytes.count)...)
                default:
                    let start = next(bytes.count)
                    bytes.removeSubrange(start..<min(bytes.count, start + next(40)))
                }
                if bytes.isEmpty { bytes = [0x3C] }
            }
            _ = loader.decode(bytes, path: "/fuzz.plist")
        }
    }
}
