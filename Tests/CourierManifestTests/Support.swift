import BusTestSupport
import Foundation
import Glibc
import CourierNames
@testable import CourierManifest

/// An XML Info.plist around `body` (the inside of the top-level dict).
func plist(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \(body)
    </dict>
    </plist>
    """
}

/// A minimal manifest claiming `schemes` with `rank`.
func appPlist(_ id: String, schemes: [String] = [], rank: String? = nil, extra: String = "") -> String {
    let rankXML = rank.map { "<key>LSHandlerRank</key><string>\($0)</string>" } ?? ""
    let urlTypes = schemes.isEmpty ? "" : """
        <key>CFBundleURLTypes</key>
        <array><dict>
            <key>CFBundleURLSchemes</key>
            <array>\(schemes.map { "<string>\($0)</string>" }.joined())</array>
            \(rankXML)
        </dict></array>
        """
    return plist("<key>CFBundleIdentifier</key><string>\(id)</string>\n\(urlTypes)\n\(extra)")
}

/// Parses XML text as if it were the file at `path`.
func parse(_ xml: String, path: String = "/apps/test.plist") -> ManifestLoader.FileResult {
    ManifestLoader().decode(Array(xml.utf8), path: path)
}

extension ManifestLoader.FileResult {
    func codes() -> [ManifestDiagnostic.Code] { diagnostics.map(\.code) }
    func diagnostic(_ code: ManifestDiagnostic.Code) -> ManifestDiagnostic? { diagnostics.first { $0.code == code } }
}

/// The repository's Schemes/ folder.
let schemesFolder: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("Schemes").path
}()

/// A manifest value for registry tests.
func manifest(_ id: String, schemes: [String: HandlerRank] = [:], documents: [(String, HandlerRank)] = [], path: String? = nil) -> Manifest {
    // The ids are literals of the tests: a bad one is a mistake in the test, caught at once.
    Manifest(
        bundleIdentifier: try! BundleIdentifier(id),
        urlTypes: schemes.sorted { $0.key < $1.key }.map { URLTypeDeclaration(schemes: [$0.key], rank: $0.value) },
        documentTypes: documents.map { DocumentTypeDeclaration(name: $0.0, contentTypes: [$0.0], rank: $0.1) },
        path: path ?? "/apps/\(id).plist")
}
