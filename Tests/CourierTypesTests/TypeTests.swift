import Foundation
import Testing
import BusTestSupport
@testable import CourierTypes
import URIParserOracle

@Suite struct TypeTests {
    let graph = TypeGraph(mimeDatabase: .system)

    @Test(arguments: [
        ("public.utf8-plain-text", "public.plain-text"), ("public.utf8-plain-text", "public.text"),
        ("public.utf8-plain-text", "public.data"), ("public.utf8-plain-text", "public.item"),
        ("public.utf8-plain-text", "public.content"), ("public.json", "public.text"), ("public.xml", "public.data"),
        ("public.png", "public.image"), ("public.jpeg", "public.content"), ("public.pdf", "public.data"),
        ("com.adobe.pdf", "public.composite-content"), ("public.zip-archive", "public.archive"),
        ("public.mp3", "public.audio"), ("public.mpeg-4", "public.movie"), ("public.file-url", "public.url"),
        ("public.svg-image", "public.xml"), ("public.folder", "public.item"), ("public.movie", "public.audiovisual-content"),
    ])
    func systemTypesConform(_ pair: (String, String)) {
        #expect(graph.conforms(pair.0, to: pair.1))
    }

    @Test(arguments: [
        ("public.png", "public.text"), ("public.text", "public.plain-text"), ("public.data", "public.content"),
        ("public.json", "public.plain-text"), ("public.zip-archive", "public.image"), ("public.folder", "public.data"),
    ])
    func unrelatedTypesDoNotConform(_ pair: (String, String)) {
        #expect(!graph.conforms(pair.0, to: pair.1))
    }

    @Test func extensionsAndMIMETypesMapToTypes() {
        #expect(graph.type(forFilenameExtension: "TXT") == "public.plain-text")
        #expect(graph.type(forFilenameExtension: "jpg") == "public.jpeg")
        #expect(graph.type(forMIMEType: "application/json") == "public.json")
        #expect(graph.type(forMIMEType: "Image/PNG") == "public.png")
        #expect(graph.type(forFileName: "archive.tar.gz") != nil)
        #expect(graph.declaration(for: "public.pdf")?.identifier == "com.adobe.pdf")
    }

    @Test func sharedMIMEInfoPlacesUnknownTypesUnderTheirParents() {
        // shared-mime-info knows .rs as text/rust, a subclass of text/plain; Courier's table does not.
        let rust = graph.type(forFilenameExtension: "rs")
        #expect(rust == "dyn.mime.text/rust")
        #expect(graph.conforms(rust!, to: "public.plain-text"))
        let unknown = graph.type(forMIMEType: "application/x-courier-nothing")
        #expect(graph.conforms(unknown, to: "public.data"))
        #expect(!graph.conforms(unknown, to: "public.text"))
    }

    @Test func appDeclarationsJoinTheGraphAndExportBeatsImport() {
        var g = graph
        #expect(g.add(TypeDeclaration(identifier: "com.acme.note", conformsTo: ["public.data"], filenameExtensions: ["note"]), declaredBy: "org.other", exported: false) == .added)
        #expect(g.add(TypeDeclaration(identifier: "com.acme.note", conformsTo: ["public.json"], filenameExtensions: ["acmenote"]), declaredBy: "com.acme", exported: true) == .added)
        #expect(g.conforms("com.acme.note", to: "public.text"))
        #expect(g.type(forFilenameExtension: "acmenote") == "com.acme.note")
        #expect(g.add(TypeDeclaration(identifier: "com.acme.note"), declaredBy: "com.thief", exported: true) == .declaredBy("com.acme"))
        #expect(g.add(TypeDeclaration(identifier: "public.png", conformsTo: ["public.text"]), declaredBy: "com.thief", exported: true) == .systemType)
        #expect(!g.conforms("public.png", to: "public.text"))
    }

    // MARK: - Files: by extension, and by content where the extension is missing or lies

    let resolver = FileTypeResolver(types: TypeGraph(mimeDatabase: .system))
    static let png = SampleContent.png
    static let pdf = SampleContent.pdf

    @Test func libmagicIsAvailable() {
        #expect(ContentSniffer.shared != nil)
    }

    @Test func extensionThatLiesLosesToTheContent() {
        let id = resolver.identify(suggestedName: "holiday.txt", contents: Self.png)
        #expect(id.typeIdentifier == "public.png")
        #expect(id.source == .content)
        #expect(id.typeByExtension == "public.plain-text")
        #expect(id.reason.contains("contradicts"))
    }

    @Test func missingExtensionUsesTheContent() {
        #expect(resolver.identify(suggestedName: "scan", contents: Self.pdf).typeIdentifier == "com.adobe.pdf")
        #expect(resolver.identify(suggestedName: "data", contents: Array("{\"tasks\": [\"a\", \"b\"]}\n".utf8)).typeIdentifier == "public.json")
        #expect(resolver.identify(suggestedName: "list", contents: Array("Buy milk\nCall Bob\n".utf8)).typeIdentifier == "public.plain-text")
    }

    @Test func agreeingOrSilentContentKeepsTheExtension() {
        #expect(resolver.identify(suggestedName: "notes.md", contents: Array("# Title\nsome text\n".utf8)).typeIdentifier == "net.daringfireball.markdown")
        #expect(resolver.identify(suggestedName: "a.png", contents: Self.png).source == .filenameExtension)
        #expect(resolver.identify(suggestedName: "empty.txt", contents: []).typeIdentifier == "public.plain-text")
        #expect(resolver.identify(suggestedName: "song.mp3", contents: [0, 1, 2, 3, 250, 251, 252, 7, 8, 0, 0, 9]).typeIdentifier == "public.mp3")
        #expect(resolver.identify(suggestedName: "x.unknownext", contents: nil).typeIdentifier == "dyn.ext.unknownext")
        #expect(resolver.identify(suggestedName: "nothing", contents: nil).typeIdentifier == "public.data")
    }

    @Test func identifyingFromADescriptorDoesNotMoveItsOffset() throws {
        let folder = TemporaryFolder()
        let path = folder.write("photo", bytes: Self.png)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        #expect(resolver.identify(suggestedName: "photo.txt", fileDescriptor: fd).typeIdentifier == "public.png")
        #expect(lseek(fd, 0, SEEK_CUR) == 0)
    }

    // MARK: - The shared-mime-info checking order

    let database = MIMEDatabase.system

    @Test(arguments: [
        ("a.tar.xz", "application/x-xz-compressed-tar"), ("a.xz", "application/x-xz"), ("doc.ps.gz", "application/x-gzpostscript"),
        ("a.gz", "application/gzip"), ("meson_options.txt", "text/x-meson"), ("notes.txt", "text/plain"),
        ("SConstruct", "text/x-scons"), ("SConscript", "text/x-scons"), ("x.C", "text/x-c++src"), ("x.c", "text/x-csrc"),
        ("PHOTO.PNG", "image/png"), ("libz.so.1", "application/x-sharedlib"), ("Makefile", "text/x-makefile"), ("drawing.kra", "application/x-krita"),
    ])
    func globsFollowTheSpecification(_ pair: (String, String)) {
        #expect(database.mimeTypes(forFileName: pair.0).first == pair.1)
    }

    @Test func ambiguousNamesAreDecidedByTheContent() throws {
        // `.ts` is Qt Linguist (XML) and an MPEG transport stream: the content decides.
        #expect(database.mimeTypes(forFileName: "a.ts").count >= 2)
        let linguist = Array("<?xml version=\"1.0\"?>\n<!DOCTYPE TS>\n<TS version=\"2.1\"></TS>\n".utf8)
        #expect(linguist.withUnsafeBytes { database.guess(fileName: "a.ts", contents: $0) }.mimeType == "text/vnd.trolltech.linguist")
        // No name: the magic rules (a feed, a C file with a leading comment), then text or binary.
        let feed = Array("<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel/></rss>\n".utf8)
        #expect(feed.withUnsafeBytes { database.guess(fileName: "feed", contents: $0) }.mimeType == "application/rss+xml")
        #expect([UInt8]([0, 1, 2, 3]).withUnsafeBytes { database.guess(fileName: nil, contents: $0) }.mimeType == "application/octet-stream")
    }

    @Test func magicRulesReadFromTheDatabase() {
        // PNG's rule has priority 50; the parser keeps indents, masks and ranges.
        #expect(database.magic.rules.count > 400)
        #expect(SampleContent.png.withUnsafeBytes { database.magic.match($0) }?.mimeType == "image/png")
        #expect(database.sniffLength == 4096)
        #expect(database.magic.rules.contains { $0.matchlets.contains { $0.mask != nil } })
        #expect(database.magic.rules.contains { $0.matchlets.contains { !$0.children.isEmpty } })
        #expect(database.magic.rules.contains { $0.matchlets.contains { $0.range > 1 } })
    }

    /// The names other tools use map to the database's; each entry is needed and leads somewhere.
    @Test func otherToolsMIMENamesMapToTheDatabasesTypes() {
        for (other, ours) in MIMEDatabase.otherNames {
            #expect(!database.knows(other), "\(other) is known to the database itself")
            #expect(database.knows(ours), "\(ours) is not in the database")
            #expect(database.canonical(other) == database.canonical(ours))
        }
        #expect(graph.type(forMIMEType: "font/sfnt") == graph.type(forFilenameExtension: "ttf"))
        #expect(graph.type(forMIMEType: "image/x-portable-greymap") == graph.type(forFilenameExtension: "pgm"))
    }

    @Test func aBinaryUnderATextNameIsNotTakenForAnExecutable() throws {
        let elf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/bin/true")).prefix(8192))
        let id = resolver.identify(suggestedName: "notes.txt", contents: elf)
        #expect(id.typeIdentifier == "public.plain-text")
        #expect(id.departure == nil)
    }

    /// `$XDG_DATA_HOME/mime` is the user's to write: a damaged or hostile `magic` file loses its bad
    /// sections and never stops the reader (truncations, flipped bytes, absurd lengths and nesting).
    @Test func aDamagedMagicFileIsReadAsFarAsItMakesSense() throws {
        let real = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/share/mime/magic")))
        var rng = SplitMix64(state: 0x3A61C)
        let sample = SampleContent.png + Array("<?xml version=\"1.0\"?>\n<svg/>".utf8)
        for round in 0..<300 {
            var bytes = real
            switch round % 3 {
            case 0: bytes = Array(bytes.prefix(Int.random(in: 12..<bytes.count, using: &rng)))
            case 1: for _ in 0..<20 { bytes[Int.random(in: 12..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            default: bytes.insert(contentsOf: Array("1>0=".utf8) + [0xFF, 0xFF], at: Int.random(in: 12..<bytes.count, using: &rng))
            }
            let magic = try #require(MIMEMagic.parse(bytes))
            _ = sample.withUnsafeBytes { magic.match($0) }
        }
        let deep = Array("MIME-Magic\0\n[50:x/deep]\n".utf8) + (0..<100_000).flatMap { Array("\($0)>0=".utf8) + [0, 1, 65, 10] }
        let parsed = try #require(MIMEMagic.parse(deep))
        #expect(parsed.rules.isEmpty)
        let headers = Array("MIME-Magic\0\n".utf8) + (0..<100_000).flatMap { _ in Array("[bad]\n".utf8) }
        #expect(MIMEMagic.parse(headers)?.rules.isEmpty == true)
        #expect(MIMEMagic.parse(Array("not magic".utf8)) == nil)
    }
}
