import BusTestSupport
import Foundation
import Testing
@testable import CourierManifest
import CourierTypes

/// Manifests shaped like real older apps (`Tests/Fixtures/legacy-manifests`): document types
/// declared only with `CFBundleTypeExtensions` / `CFBundleTypeMIMETypes` are mapped to types, with
/// a diagnostic naming what was inferred, and real files of those types are then routed to them.
@Suite struct LegacyDocumentTypesTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/legacy-manifests").path

    func load(_ name: String) -> ManifestLoader.FileResult {
        ManifestLoader().load(file: Self.fixtures + "/" + name)
    }

    func registry() -> Registry {
        let loaded = ManifestLoader().load(folders: [Self.fixtures])
        return Registry.build(files: loaded.files, previous: Registry()).registry
    }

    @Test func extensionsAndMIMETypesBecomeTypesWithADiagnostic() throws {
        let skim = load("net.sourceforge.skim-app.skim.plist")
        let manifest = try #require(skim.manifest)
        #expect(manifest.documentTypes.count == 2)
        // pdf, PDF and application/pdf are one type.
        #expect(manifest.documentTypes[0].contentTypes == ["com.adobe.pdf"])
        #expect(manifest.documentTypes[0].name == "PDF document")
        let inferred = skim.diagnostics.filter { $0.code == .inferredDocumentType }
        #expect(inferred.map(\.keyPath) == ["CFBundleDocumentTypes[0]", "CFBundleDocumentTypes[1]"])
        #expect(inferred.allSatisfy { $0.severity == .warning && $0.file.hasSuffix("skim.plist") })
        #expect(inferred[0].message.contains("com.adobe.pdf (from CFBundleTypeExtensions pdf)"))
        #expect(inferred[0].message.contains("add LSItemContentTypes with com.adobe.pdf"))
        // PostScript has no UTI Courier knows: the advice is to declare one, never to write a dyn.* type.
        #expect(inferred[1].message.contains("declare a type in UTImportedTypeDeclarations for CFBundleTypeExtensions ps"))
        #expect(!inferred[1].message.contains("LSItemContentTypes with dyn."))
        // No entry was dropped.
        #expect(!skim.diagnostics.contains { $0.message.contains("the entry is ignored") })
        // PostScript is not a Courier system type: the types are those files named so are given.
        let resolver = FileTypeResolver(types: TypeGraph(), sniffer: nil)
        for name in ["paper.ps", "figure.eps"] {
            #expect(manifest.documentTypes[1].contentTypes.contains(resolver.identify(suggestedName: name, contents: nil).typeIdentifier))
        }
        #expect(manifest.documentTypes[1].rank == .alternate)
    }

    @Test func starMeansAnyFile() throws {
        let emacs = try #require(load("org.gnu.aquamacs.plist").manifest)
        #expect(emacs.documentTypes[1].contentTypes == ["public.data"])
        #expect(emacs.documentTypes[0].contentTypes.contains("public.plain-text"))
    }

    @Test func theAppsOwnExportedTypeIsFoundByItsExtension() throws {
        let xee = load("org.xeeapp.xee.plist")
        let manifest = try #require(xee.manifest)
        #expect(manifest.documentTypes[1].contentTypes == ["org.xeeapp.view-settings"])
        #expect(Set(manifest.documentTypes[0].contentTypes) == ["public.png", "public.jpeg", "com.compuserve.gif"])
        // "public.xml " in UTTypeConformsTo is trimmed with a warning, not refused.
        #expect(manifest.exportedTypes.first?.conformsTo == ["public.xml"])
        let trimmed = try #require(xee.diagnostic(.trimmedWhitespace))
        #expect(trimmed.keyPath == "UTExportedTypeDeclarations[0].UTTypeConformsTo[0]")
        #expect(trimmed.message.contains("'public.xml '"))
    }

    @Test func contentTypesWinOverLegacyKeysAndStrayBlanksAreTrimmed() throws {
        let wrangler = load("com.barebones.textwrangler.plist")
        let manifest = try #require(wrangler.manifest)
        // LSItemContentTypes present: CFBundleTypeExtensions png is ignored (as Launch Services does).
        #expect(manifest.documentTypes[0].contentTypes == ["public.plain-text", "public.json"])
        #expect(wrangler.diagnostics.filter { $0.code == .trimmedWhitespace }.map(\.keyPath)
                == ["CFBundleDocumentTypes[0].LSItemContentTypes[0]", "CFBundleDocumentTypes[0].LSItemContentTypes[1]"])
        // A MIME type with parameters, and one nobody knows (a dyn.mime type, as sniffing would give).
        #expect(manifest.documentTypes[1].contentTypes == ["net.daringfireball.markdown", "dyn.mime.text/x-vendor-notes"])
    }

    @Test func valuesThatAreNeitherExtensionNorMIMETypeAreReported() throws {
        let r = parse(appPlist("com.example.old", extra: """
            <key>CFBundleDocumentTypes</key><array><dict>
                <key>CFBundleTypeExtensions</key><array><string>a/b</string><string></string></array>
                <key>CFBundleTypeMIMETypes</key><array><string>nonsense</string></array>
            </dict></array>
            """))
        let manifest = try #require(r.manifest)
        #expect(manifest.documentTypes.isEmpty)
        #expect(r.diagnostics.filter { $0.code == .invalidValue }.map(\.keyPath) == [
            "CFBundleDocumentTypes[0].CFBundleTypeExtensions[0]", "CFBundleDocumentTypes[0].CFBundleTypeExtensions[1]",
            "CFBundleDocumentTypes[0].CFBundleTypeMIMETypes[0]", "CFBundleDocumentTypes[0]",
        ])
        #expect(r.diagnostics.last?.message.contains("the entry is ignored") == true)
    }

    @Test func classicFileTypeCodesThatNameATypeAreRead() throws {
        let r = parse(appPlist("com.example.classic", extra: """
            <key>CFBundleDocumentTypes</key><array>
                <dict><key>CFBundleTypeOSTypes</key><array><string>TEXT</string><string>????</string></array></dict>
                <dict><key>CFBundleTypeOSTypes</key><array><string>????</string></array></dict>
            </array>
            """))
        let manifest = try #require(r.manifest)
        #expect(manifest.documentTypes.map(\.contentTypes) == [["public.plain-text"]])
        #expect(r.diagnostic(.inferredDocumentType)?.message.contains("public.plain-text (from CFBundleTypeOSTypes 'TEXT')") == true)
        #expect(r.diagnostics.last?.keyPath == "CFBundleDocumentTypes[1]")
        #expect(r.diagnostics.last?.message.contains("the entry is ignored") == true)
    }

    /// Real files, identified by name and content as a drop is, reach the old apps.
    @Test func realFilesRouteToTheOldApps() throws {
        let folder = TemporaryFolder()
        let registry = registry()
        let pdf = folder.write("paper.pdf", "%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
        let png = folder.write("pic.png", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
                                                  0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89])
        let text = folder.write("notes.txt", "milk\neggs\n")
        let lying = folder.write("photo.txt", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
                                                      0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89])
        let settings = folder.write("mine.xeeview", "<?xml version=\"1.0\"?><settings/>\n")
        func chosen(_ path: String) -> String? {
            registry.handlers(forType: registry.fileTypes.identify(path: path).typeIdentifier).chosen?.bundleIdentifier
        }
        #expect(chosen(pdf) == "net.sourceforge.skim-app.skim")
        #expect(chosen(png) == "org.xeeapp.Xee")
        #expect(chosen(lying) == "org.xeeapp.Xee")   // a PNG named .txt is a PNG
        #expect(chosen(settings) == "org.xeeapp.Xee")
        let textHandlers = registry.handlers(forType: registry.fileTypes.identify(path: text).typeIdentifier).bundleIdentifiers
        #expect(Set(textHandlers.prefix(2)) == ["org.gnu.Aquamacs", "com.barebones.textwrangler"])
    }

    /// A type with only a MIME name (`application/x-krita`, a zip inside): an app naming it in
    /// `CFBundleTypeMIMETypes`, or through a type it declares with that MIME tag, gets `.kra`
    /// files ahead of an app that declares `public.zip-archive`.
    @Test func anAppNamingAMIMETypeGetsItsFilesAheadOfTheContainersApp() throws {
        let folder = TemporaryFolder()
        func documentTypes(_ body: String) -> String {
            "<key>CFBundleDocumentTypes</key><array><dict>\(body)</dict></array>"
        }
        folder.write("zip.plist", appPlist("org.example.unzip", extra: documentTypes("<key>LSItemContentTypes</key><array><string>public.zip-archive</string></array>")))
        folder.write("paint.plist", appPlist("org.example.paint", extra: documentTypes("<key>CFBundleTypeMIMETypes</key><array><string>application/x-krita</string></array>")))
        let kra = folder.write("drawing.kra", bytes: Array("PK\u{3}\u{4}".utf8) + [UInt8](repeating: 0, count: 26) + Array("mimetypeapplication/x-krita".utf8))
        let zip = folder.write("files.zip", bytes: Array("PK\u{3}\u{4}".utf8) + [UInt8](repeating: 0, count: 40))
        var loaded = ManifestLoader().load(folders: [folder.path])
        var registry = Registry.build(files: loaded.files, previous: Registry()).registry
        let type = registry.fileTypes.identify(path: kra)
        #expect(type.mimeType == "application/x-krita")
        #expect(registry.handlers(forType: type.typeIdentifier).bundleIdentifiers.first == "org.example.paint")
        #expect(registry.handlers(forType: registry.fileTypes.identify(path: zip).typeIdentifier).bundleIdentifiers == ["org.example.unzip"])

        // The same through an imported declaration carrying the MIME tag (a name of the app's choosing).
        folder.write("krita.plist", appPlist("org.kde.krita", extra: documentTypes("<key>LSItemContentTypes</key><array><string>org.kde.krita.document</string></array>") + """
            <key>UTImportedTypeDeclarations</key><array><dict>
            <key>UTTypeIdentifier</key><string>org.kde.krita.document</string>
            <key>UTTypeTagSpecification</key><dict><key>public.mime-type</key><string>application/x-krita</string></dict>
            </dict></array>
            """))
        loaded = ManifestLoader().load(folders: [folder.path])
        registry = Registry.build(files: loaded.files, previous: Registry()).registry
        let declared = registry.fileTypes.identify(path: kra)
        #expect(declared.typeIdentifier == "org.kde.krita.document")
        let handlers = registry.handlers(forType: declared.typeIdentifier).bundleIdentifiers
        #expect(Set(handlers.prefix(2)) == ["org.kde.krita", "org.example.paint"])
    }
}
