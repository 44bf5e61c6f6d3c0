import CourierNames
import Glibc

/// Decides a file's uniform type identifier from its suggested name and its content.
///
/// By extension through the type graph (declared types, then shared-mime-info); by content through
/// libmagic. When both speak: the extension wins if its type conforms to what the content shows
/// (`.docx` over "zip"), if the content is plain text and the extension names a text type
/// (`.md`, `.json`), or if the content is unrecognised binary and the extension does not claim text; the content wins if it is more specific (`.xml` that is SVG) or
/// if the two disagree — the extension lied (`photo.txt` that is a PNG).
public struct FileTypeResolver: Sendable {
    public var types: TypeGraph
    public var sniffer: ContentSniffer?

    public init(types: TypeGraph, sniffer: ContentSniffer? = ContentSniffer.shared) {
        self.types = types
        self.sniffer = sniffer
    }

    /// Identifies from a name and the first bytes of the content (nil: content not available).
    public func identify(suggestedName name: String, contents: [UInt8]?) -> FileTypeIdentification {
        let byName = typeForName(name)
        var byContent: (uti: String, mime: String)?
        if let contents, let sniffer, let sniffed = sniffer.sniff(contents) {
            byContent = typeForSniffed(sniffed.mimeType, charset: sniffed.charset)
        }
        return decide(name: name, byName: byName, byContent: byContent)
    }

    /// Identifies from a name and an open descriptor. Reads at most ``ContentSniffer/maximumBytes``
    /// from offset 0 with `pread`, so the descriptor's offset is unchanged, and only from a regular
    /// file: anything else a caller may pass (a pipe, a socket, a device that could block or never
    /// end) is identified by name only — the broker routes such descriptors before the Inbox
    /// refuses them.
    public func identify(suggestedName name: String, fileDescriptor fd: Int32) -> FileTypeIdentification {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return identify(suggestedName: name, contents: nil) }
        return identify(suggestedName: name, contents: Self.prefix(of: fd))
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

    static func prefix(of fd: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: ContentSniffer.maximumBytes)
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

    private func typeForName(_ name: String) -> String? {
        let base = Paths.lastComponent(of: name)
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else {
            return types.type(forFileName: base)
        }
        if let known = types.type(forFileName: base) { return known }
        let ext = String(base[base.index(after: dot)...]).lowercased()
        guard !ext.isEmpty, ext.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else { return nil }
        return TypeGraph.dynamicExtensionPrefix + ext
    }

    private func typeForSniffed(_ mime: String, charset: String?) -> (uti: String, mime: String)? {
        switch mime {
        case "application/x-empty", "inode/x-empty":
            return nil
        case "text/plain":
            switch charset {
            case "utf-8", "us-ascii": return ("public.utf8-plain-text", mime)
            case "utf-16le", "utf-16be": return ("public.utf16-plain-text", mime)
            default: return ("public.plain-text", mime)
            }
        case "inode/directory":
            return ("public.folder", mime)
        default:
            return (types.type(forMIMEType: mime), mime)
        }
    }

    private static let genericText: Set<String> = ["public.text", "public.plain-text", "public.utf8-plain-text", "public.utf16-plain-text"]

    private func decide(name: String, byName: String?, byContent: (uti: String, mime: String)?) -> FileTypeIdentification {
        func result(_ uti: String, _ source: FileTypeIdentification.Source, _ reason: String, mime: String? = nil) -> FileTypeIdentification {
            FileTypeIdentification(
                typeIdentifier: uti, mimeType: mime ?? types.preferredMIMEType(for: uti), source: source,
                typeByExtension: byName, typeByContent: byContent?.uti, reason: reason)
        }
        switch (byName, byContent) {
        case (nil, nil):
            return result("public.data", .fallback, "no known extension and no recognisable content")
        case (let n?, nil):
            return result(n, .filenameExtension, "by its name")
        case (nil, let c?):
            return result(c.uti, .content, "by its content (\(c.mime))", mime: c.mime)
        case (let n?, let c?):
            if n == c.uti || types.conforms(n, to: c.uti) {
                return result(n, .filenameExtension, "by its name; the content (\(c.mime)) agrees")
            }
            if Self.genericText.contains(c.uti), types.conforms(n, to: "public.text") {
                return result(n, .filenameExtension, "by its name; the content is text, as the name says")
            }
            if types.conforms(c.uti, to: n) {
                return result(c.uti, .content, "by its content (\(c.mime)), more specific than its name says", mime: c.mime)
            }
            if c.uti == "public.data", !types.conforms(n, to: "public.text") {
                return result(n, .filenameExtension, "by its name; the content is not recognised")
            }
            if Self.genericText.contains(c.uti), n.hasPrefix(TypeGraph.dynamicExtensionPrefix) {
                return result(c.uti, .content, "by its content (\(c.mime)); the extension is unknown", mime: c.mime)
            }
            return result(c.uti, .content, "by its content (\(c.mime)): the name says \(n), which the content contradicts", mime: c.mime)
        }
    }
}
