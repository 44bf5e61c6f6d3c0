import CourierManifest
import CourierURL
import Foundation
import Testing

/// The property-list form of URL formats (a manifest's `CourierURLFormat`): errors name the key path, and
/// the Swift and property-list forms round-trip.
struct URLFormatPropertyListTests {
    func plist(_ xml: String) throws -> Any {
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">\(xml)</plist>
            """
        return try PropertyListSerialization.propertyList(from: Data(document.utf8), format: nil)
    }

    @Test func propertyListErrorsNameTheKeyPath() throws {
        let cases: [(String, String)] = [
            ("<dict><key>Schemes</key><array><string>3com</string></array></dict>", "Schemes[0]"),
            ("<dict><key>Schemes</key><string>todolist</string></dict>", "Schemes"),
            ("<dict><key>Components</key><dict><key>fragmnt</key><dict/></dict></dict>", "Components.fragmnt"),
            ("<dict><key>Components</key><dict><key>query</key><dict><key>Presense</key><string>required</string></dict></dict></dict>", "Components.query.Presense"),
            ("<dict><key>Components</key><dict><key>query</key><dict><key>Presence</key><string>always</string></dict></dict></dict>", "Components.query.Presence"),
            ("<dict><key>Components</key><dict><key>query</key><dict><key>NonBlank</key><string>yes</string></dict></dict></dict>", "Components.query.NonBlank"),
            ("<dict><key>Components</key><dict><key>fragment</key><dict><key>Type</key><string>date</string></dict></dict></dict>", "Components.fragment.Format"),
            ("<dict><key>Components</key><dict><key>fragment</key><dict><key>Type</key><string>date</string><key>Format</key><string>yyyyMMddhhmm</string></dict></dict></dict>", "Components.fragment.Format"),
            ("<dict><key>Components</key><dict><key>port</key><dict><key>Type</key><string>integer</string><key>Minimum</key><string>1</string></dict></dict></dict>", "Components.port.Minimum"),
            ("<dict><key>Components</key><dict><key>path</key><dict><key>Pattern</key><string>([a-z</string></dict></dict></dict>", "Components.path.Pattern"),
            ("<dict><key>QueryItems</key><dict><key>n</key><dict><key>Type</key><string>number</string></dict></dict></dict>", "QueryItems.n.Type"),
            ("<array/>", ""),
        ]
        for (xml, keyPath) in cases {
            let value = try plist(xml)
            #expect(throws: URLFormatError.self) { try URLFormat(propertyList: value) }
            do {
                _ = try URLFormat(propertyList: value)
            } catch {
                #expect(error.keyPath == keyPath, "\(xml): \(error)")
                #expect(!error.advice.isEmpty)
            }
        }
    }

    @Test func propertyListRoundTripsThroughSwift() throws {
        let format = URLFormat(
            schemes: [try URIScheme("x-app")],
            components: [
                .host: URLComponentRule(.forbidden),
                .path: URLComponentRule(.required, decoding: .raw, pattern: "/[a-z]+", maximumLength: 32),
                .port: URLComponentRule(type: .integer(minimum: 1024, maximum: 2048)),
            ],
            queryItems: ["n": URLComponentRule(.required, decoding: .form, type: .integer(minimum: 0))],
            allowsOtherQueryItems: false)
        let data = try PropertyListSerialization.data(fromPropertyList: format.propertyList, format: .xml, options: 0)
        let value = try PropertyListSerialization.propertyList(from: data, format: nil)
        #expect(try URLFormat(propertyList: value) == format)
    }

    @Test func aDNSHostIsDeclaredAtTheTopOfTheFormat() throws {
        let format = try URLFormat(propertyList: plist("<dict><key>DNSHost</key><true/></dict>"))
        #expect(format.dnsHost)
        #expect(try URLFormat(propertyList: format.propertyList) == format)
        #expect(try URLFormat(propertyList: plist("<dict/>")).dnsHost == false)
        #expect(throws: URLFormatError.self) { try URLFormat(propertyList: plist("<dict><key>DNSHost</key><string>yes</string></dict>")) }
    }

    @Test func booleansAndNumbersAreNotConfused() throws {
        let zero = try plist("<dict><key>Components</key><dict><key>query</key><dict><key>NonBlank</key><integer>1</integer></dict></dict></dict>")
        #expect { try URLFormat(propertyList: zero) } throws: { ($0 as! URLFormatError).keyPath == "Components.query.NonBlank" }
        let flag = try plist("<dict><key>Components</key><dict><key>port</key><dict><key>Type</key><string>integer</string><key>Minimum</key><true/></dict></dict></dict>")
        #expect { try URLFormat(propertyList: flag) } throws: { ($0 as! URLFormatError).keyPath == "Components.port.Minimum" }
        let swiftValues: [String: Any] = ["Components": ["query": ["NonBlank": true, "MaxLength": NSNumber(value: 0)]]]
        #expect(try URLFormat(propertyList: swiftValues).components[.query]?.maximumLength == 0)
    }
}
