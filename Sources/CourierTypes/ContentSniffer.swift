import CMagic
import Foundation

/// Content sniffing with libmagic (the library behind file(1)), through its C API.
///
/// The shared-mime-info database's own rules decide a file's type (``MIMEDatabase``,
/// ``FileTypeResolver``); libmagic is asked only where the database has no rule and libmagic has
/// one: JSON, which has no magic bytes, and bytes under a text name that the database's text test
/// rejects (UTF-16 text, a binary format it lacks). Its MIME names are translated to the
/// database's (``MIMEDatabase/canonical(_:)``).
///
/// A libmagic cookie is not thread-safe: every call takes `lock` (the invariant behind
/// `@unchecked Sendable`). The cookie is opened
/// with `MAGIC_NO_CHECK_COMPRESS` (never look inside compressed data) and only ever sees a bounded
/// prefix of the file (``maximumBytes``).
public final class ContentSniffer: @unchecked Sendable {
    /// How many bytes of a file are examined.
    public static let maximumBytes = 64 * 1024

    private let magic: OpaquePointer
    private let lock = NSLock()

    /// The process-wide sniffer; nil when libmagic's database cannot be loaded.
    public static let shared: ContentSniffer? = ContentSniffer()

    /// Opens libmagic with its default database; nil if that fails.
    public init?() {
        let flags = Int32(MAGIC_MIME_TYPE) | Int32(MAGIC_MIME_ENCODING) | Int32(MAGIC_NO_CHECK_COMPRESS) | Int32(MAGIC_ERROR)
        guard let magic = magic_open(flags) else { return nil }
        guard magic_load(magic, nil) == 0 else {
            magic_close(magic)
            return nil
        }
        self.magic = magic
    }

    deinit {
        magic_close(magic)
    }

    /// What libmagic says about `bytes`: the MIME type and, for text, the charset. nil for empty input.
    public func sniff(_ bytes: UnsafeRawBufferPointer) -> (mimeType: String, charset: String?)? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        let count = min(bytes.count, Self.maximumBytes)
        lock.lock()
        let result = magic_buffer(magic, base, count).map { String(cString: $0) }
        lock.unlock()
        guard let answer = result else { return nil }
        // "text/plain; charset=utf-8"
        let parts = answer.split(separator: ";").map { $0.trimmingCharacters(in: " ") }
        guard let mime = parts.first, !mime.isEmpty else { return nil }
        let charset = parts.dropFirst().first { $0.hasPrefix("charset=") }.map { String($0.dropFirst("charset=".count)) }
        return (mime.lowercased(), charset?.lowercased())
    }

    /// Convenience for arrays.
    public func sniff(_ bytes: [UInt8]) -> (mimeType: String, charset: String?)? {
        bytes.withUnsafeBytes { sniff($0) }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
