import CourierBroker
import CourierNames
import Foundation
import Testing

/// The broker maps IRIs before it routes: an app scheme whose URL format declares `DNSHost` gets
/// its host through IDNA, any other app scheme a percent-encoded host, and a refusal names the
/// offset in the text as given and the URL that would be accepted.
@Suite struct ManifestCatalogIRITests {
    func catalog() throws -> (ManifestCatalog, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-iri-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (bundle, scheme, dnsHost) in [("com.example.maps", "geomap", true), ("com.example.notes", "notes", false)] {
            var plist: [String: Any] = [
                "CFBundleIdentifier": bundle,
                "CFBundleName": bundle,
                "CFBundleURLTypes": [["CFBundleURLName": bundle, "CFBundleURLSchemes": [scheme]]],
                "CourierLaunchArguments": ["/bin/true"],
            ]
            if dnsHost { plist["CourierURLFormat"] = ["DNSHost": true] }
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
                .write(to: URL(fileURLWithPath: "\(folder)/\(bundle).plist"))
        }
        return (ManifestCatalog(folders: [folder]), folder)
    }

    @Test func hostsAreConvertedByTheFormatsDeclaration() throws {
        let (catalog, folder) = try catalog()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try catalog.uri(fromIRI: "geomap://例え.jp/パス") == "geomap://xn--r8jz45g.jp/%E3%83%91%E3%82%B9")
        #expect(try catalog.uri(fromIRI: "notes://例え.jp/パス") == "notes://%E4%BE%8B%E3%81%88.jp/%E3%83%91%E3%82%B9")
        #expect(try catalog.uri(fromIRI: "https://例え.jp/") == "https://xn--r8jz45g.jp/")
        #expect(try catalog.uri(fromIRI: "notes://x?Quarterly%20Report") == "notes://x?Quarterly%20Report")
        do {
            _ = try catalog.uri(fromIRI: "notes://x?Café Report")
            Issue.record("a space was accepted")
        } catch {
            #expect(error.code == .invalidURL)
            #expect(error.message.contains("at offset 15"), "\(error.message)")
            #expect(error.message.contains("the URL it would accept: notes://x?Caf%C3%A9%20Report"), "\(error.message)")
        }
        do {
            _ = try catalog.uri(fromIRI: "notes://x?\u{1B}[31m\u{202E}")
            Issue.record("a control character was accepted")
        } catch {
            #expect(!error.message.unicodeScalars.contains("\u{1B}") && !error.message.unicodeScalars.contains("\u{202E}"), "the message quotes the URL escaped: \(error.message.debugDescription)")
        }
    }
}
