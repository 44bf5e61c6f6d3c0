import CourierNames
import Glibc

/// Decides a file's uniform type identifier from its suggested name and its first bytes.
///
/// The MIME type comes from the shared-mime-info database in the specification's checking order,
/// as GIO decides it (``MIMEDatabase/guess(fileName:contents:)``): one type by name decides; the
/// database's magic rules choose among several or decide alone; then text or binary. A name only a
/// declared type knows (an app's `.acmenote`) counts like a glob. Courier departs from GIO on
/// purpose in the cases ``Departure`` lists (docs/manifest.md keeps the same table), and otherwise
/// maps the MIME type to the one identifier Courier uses (``TypeGraph/type(forMIMEType:)``).
public struct FileTypeResolver: Sendable {
    public var types: TypeGraph
    public var sniffer: ContentSniffer?

    public init(types: TypeGraph, sniffer: ContentSniffer? = ContentSniffer.shared) {
        self.types = types
        self.sniffer = sniffer
    }

    /// Where Courier decides otherwise than GIO, and why. The raw values are the table's first column
    /// in docs/manifest.md.
    public enum Departure: String, Sendable, CaseIterable {
        /// The name says text, the content is something else by a magic rule (a PNG named
        /// `photo.txt`): a text handler would get bytes it cannot show. Never for programs and
        /// launchers (an ELF file named `notes.txt` stays text).
        case binaryContentUnderTextName = "binary-content-under-text-name"
        /// The name says text, no rule matched and the bytes are not text (nor text libmagic
        /// recognises, such as UTF-16): `application/octet-stream`, or libmagic's type.
        case unreadableContentUnderTextName = "unreadable-content-under-text-name"
        /// No name type, no rule, text: libmagic recognises JSON, which has no magic bytes.
        case jsonWithoutName = "json-without-name"
        /// A name the database has no glob for, but a declared type lists (Courier's `.swift` and
        /// `.plist`, an app's exported `.acmenote`): the declared type.
        case declaredExtension = "declared-extension"
        /// An empty file: its name decides (GIO's `gio info` says `application/x-zerosize`).
        case emptyFile = "empty-file"
    }

    /// Identifies from a name and the first bytes of the content (nil: content not available).
    public func identify(suggestedName name: String, contents: [UInt8]?) -> FileTypeIdentification {
        identify(suggestedName: name, empty: contents?.isEmpty ?? false) { limit in contents.map { Array($0.prefix(limit)) } }
    }

    /// Identifies from a name and an open descriptor. Reads at most ``ContentSniffer/maximumBytes``
    /// from offset 0 with `pread`, so the descriptor's offset is unchanged, and only from a regular
    /// file: anything else a caller may pass (a pipe, a socket, a device that could block or never
    /// end) is identified by name only — the broker routes such descriptors before the Inbox
    /// refuses them.
    public func identify(suggestedName name: String, fileDescriptor fd: Int32) -> FileTypeIdentification {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return identify(suggestedName: name, contents: nil) }
        return identify(suggestedName: name, empty: st.st_size == 0) { Self.prefix(of: fd, count: $0) }
    }

    /// Identifies a file by path (the CLI). Opens with `O_NONBLOCK` and examines content only for
    /// regular files, so a FIFO or device never blocks.
    public func identify(path: String) -> FileTypeIdentification {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return identify(suggestedName: Paths.lastComponent(of: path), contents: nil) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                return FileTypeIdentification(typeIdentifier: "public.folder", mimeType: "inode/directory", source: .content, typeByExtension: nil, typeByContent: "public.folder", reason: "a folder")
            }
            return identify(suggestedName: Paths.lastComponent(of: path), contents: nil)
        }
        return identify(suggestedName: Paths.lastComponent(of: path), fileDescriptor: fd)
    }

    static func prefix(of fd: Int32, count wanted: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: wanted)
        var count = 0
        while count < buffer.count {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + count, $0.count - count, off_t(count)) }
            if n < 0 {
                if errno == EINTR { continue }
                return count > 0 ? Array(buffer[..<count]) : nil
            }
            if n == 0 { break }
            count += n
        }
        return Array(buffer[..<count])
    }

    /// The decision. `read(n)` returns up to the first n bytes (nil: not available); it is called
    /// for the database's sniff length, and again for libmagic's longer prefix only when libmagic
    /// is asked.
    private func identify(suggestedName name: String, empty: Bool, read: (Int) -> [UInt8]?) -> FileTypeIdentification {
        let db = types.mimeDatabase
        let base = Paths.lastComponent(of: name)
        let head = empty ? nil : read(db.sniffLength)
        var guess = head.withOptionalBytes { db.guess(fileName: base.isEmpty ? nil : base, contents: $0) }
        // A name only a declared type knows counts as one type by name.
        var declared: String?
        if guess.nameCandidates.isEmpty, let id = types.declaredType(forFileName: base) {
            declared = id
            guess.mimeType = types.preferredMIMEType(for: id) ?? "application/octet-stream"
            guess.evidence = .name
        }
        let nameType: String? = declared ?? guess.nameCandidates.first.map { types.type(forMIMEType: $0) } ?? Self.unknownExtensionType(base)

        func result(_ mime: String, _ source: FileTypeIdentification.Source, _ reason: String,
                    uti: String? = nil, byContent: String? = nil, departure: Departure? = nil) -> FileTypeIdentification {
            FileTypeIdentification(
                typeIdentifier: uti ?? types.type(forMIMEType: mime), mimeType: mime, source: source,
                typeByExtension: nameType, typeByContent: byContent, reason: reason, departure: departure)
        }

        if empty {
            if nameType != nil, guess.evidence == .name || guess.evidence == .nameAmongSeveral {
                return result(guess.mimeType, .filenameExtension, "by its name; the file is empty", uti: declared, departure: .emptyFile)
            }
            return result("application/octet-stream", .fallback, "an empty file with no known name", departure: .emptyFile)
        }
        switch guess.evidence {
        case .name, .nameAmongSeveral:
            if let head, db.isSubclass(guess.mimeType, of: "text/plain"), let contrary = contentContradictingText(head, read: read) {
                return result(contrary.mime, .content, "by its content (\(contrary.evidence)): the name says \(guess.mimeType), which the content contradicts",
                              byContent: types.type(forMIMEType: contrary.mime), departure: contrary.departure)
            }
            let byContent = guess.magicMatch.map { types.type(forMIMEType: $0) }
            if let declared {
                return result(guess.mimeType, .filenameExtension, "by its name, which \(declared) declares", uti: declared, byContent: byContent, departure: .declaredExtension)
            }
            if guess.evidence == .name {
                return result(guess.mimeType, .filenameExtension, "by its name (\(guess.mimeType))", byContent: byContent)
            }
            let among = guess.nameCandidates.joined(separator: ", ")
            let how = guess.magicMatch.map { "the content (\($0)) chose" } ?? (head == nil ? "the content is not available: the first taken" : "the content did not decide: the first taken")
            return result(guess.mimeType, .filenameExtension, "by its name, which means \(among); \(how)", byContent: byContent)
        case .magic:
            return result(guess.mimeType, .content, "by its content (\(guess.mimeType), priority \(guess.magicPriority))", byContent: types.type(forMIMEType: guess.mimeType))
        case .text:
            if let sniffed = libmagic(read), sniffed == "application/json" {
                return result(sniffed, .content, "by its content (JSON, recognised by libmagic)", byContent: types.type(forMIMEType: sniffed), departure: .jsonWithoutName)
            }
            return result("text/plain", .content, "by its content: text", byContent: "public.plain-text")
        case .binary:
            if let nameType {
                return result("application/octet-stream", .filenameExtension, "by its name; the content is not recognised", uti: nameType, byContent: "public.data")
            }
            return result("application/octet-stream", .content, "by its content: binary data nothing recognises", byContent: "public.data")
        case .nothing:
            if let nameType { return result("application/octet-stream", .filenameExtension, "by its name", uti: nameType) }
            return result("application/octet-stream", .fallback, "no known name and no content", uti: "public.data")
        }
    }

    /// What the content is when a name says text but the content is not: bytes with control
    /// characters that a magic rule names a type that is not text, or that neither the database's
    /// text test nor libmagic takes for text.
    private func contentContradictingText(_ head: [UInt8], read: (Int) -> [UInt8]?) -> (mime: String, evidence: String, departure: Departure)? {
        let db = types.mimeDatabase
        let data = head.prefix(db.sniffLength)
        // Text (PEM, AFM, XML) is never contradicted, whatever rule its first line meets.
        guard !data.withUnsafeBytes({ MIMEDatabase.hasNoControlBytes($0) }) else { return nil }
        let matched = data.withUnsafeBytes { db.magic.match($0) }
        if let matched {
            guard !db.isSubclass(matched.mimeType, of: "text/plain"), !isLaunchable(matched.mimeType) else { return nil }
            return (matched.mimeType, "\(matched.mimeType), priority \(matched.priority)", .binaryContentUnderTextName)
        }
        guard !data.withUnsafeBytes({ MIMEDatabase.looksLikeText($0) }) else { return nil }
        let sniffed = libmagic(read)
        if let sniffed, sniffed.hasPrefix("text/") || db.isSubclass(sniffed, of: "text/plain") { return nil }
        if let sniffed, isLaunchable(sniffed) { return nil }
        if let sniffed, db.knows(sniffed), sniffed != "application/octet-stream" {
            return (db.canonical(sniffed), "\(sniffed), recognised by libmagic", .unreadableContentUnderTextName)
        }
        return ("application/octet-stream", "binary data", .unreadableContentUnderTextName)
    }

    /// Programs and launchers are never taken by content over a name that says text: a hostile
    /// sender would otherwise route `notes.txt` to whatever runs programs (GIO refuses to sniff
    /// desktop entries for the same reason).
    private func isLaunchable(_ mime: String) -> Bool {
        let db = types.mimeDatabase
        return ["application/x-executable", "application/x-pie-executable", "application/x-sharedlib", "application/x-desktop", "application/x-ms-dos-executable",
                "application/x-msdownload", "application/vnd.microsoft.portable-executable", "application/x-object", "application/x-core"]
            .contains { db.isSubclass(mime, of: $0) }
    }

    /// libmagic's MIME type for the first ``ContentSniffer/maximumBytes``, in the database's spelling.
    private func libmagic(_ read: (Int) -> [UInt8]?) -> String? {
        guard let sniffer, let bytes = read(ContentSniffer.maximumBytes), let sniffed = sniffer.sniff(bytes) else { return nil }
        if sniffed.mimeType == "text/plain", sniffed.charset?.hasPrefix("utf-16") == true { return "text/plain" }
        return types.mimeDatabase.canonical(sniffed.mimeType)
    }

    /// `dyn.ext.<extension>` for a name with an extension nothing knows.
    private static func unknownExtensionType(_ base: String) -> String? {
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return nil }
        let ext = MIMEGlobs.asciiLowercased(String(base[base.index(after: dot)...]))
        guard !ext.isEmpty, ext.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else { return nil }
        return TypeGraph.dynamicExtensionPrefix + ext
    }
}

extension Optional where Wrapped == [UInt8] {
    fileprivate func withOptionalBytes<R>(_ body: (UnsafeRawBufferPointer?) -> R) -> R {
        switch self {
        case .some(let bytes): return bytes.withUnsafeBytes { body($0) }
        case .none: return body(nil)
        }
    }
}
