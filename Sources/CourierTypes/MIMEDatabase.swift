import CourierNames
import Foundation

/// The freedesktop shared-mime-info database (the one every Linux desktop ships): which MIME type
/// a file name means (`globs2`), which MIME types are aliases (`aliases`), and which are
/// subclasses of which (`subclasses`).
///
/// Courier's UTI table declares the common types itself (as Apple does); this database answers for
/// everything else, so that an extension the table does not know still gets a MIME type and a place
/// in the conformance graph (a `dyn.mime.*` type under its MIME parents). Content sniffing is
/// libmagic's job (``ContentSniffer``), which recognises text and JSON that have no magic bytes.
///
/// Read once; immutable afterwards. Missing files mean an empty database, not an error.
public final class MIMEDatabase: Sendable {
    /// Lowercased extension (no dot) → MIME type, from `*.ext` globs; the highest weight wins.
    let extensions: [String: String]
    /// Literal file names (`Makefile`) → MIME type.
    let literalNames: [String: String]
    /// Alias → canonical MIME type.
    let aliases: [String: String]
    /// MIME type → parents.
    let parents: [String: [String]]

    init(extensions: [String: String], literalNames: [String: String], aliases: [String: String], parents: [String: [String]]) {
        self.extensions = extensions
        self.literalNames = literalNames
        self.aliases = aliases
        self.parents = parents
    }

    /// An empty database (when shared-mime-info is not installed).
    public static let empty = MIMEDatabase(extensions: [:], literalNames: [:], aliases: [:], parents: [:])

    /// The database of this machine: `$XDG_DATA_HOME/mime` and each `$XDG_DATA_DIRS/mime`
    /// (default `/usr/local/share:/usr/share`), earlier folders taking precedence.
    public static let system = load(folders: CourierLayout.current().mimeFolders)

    /// Reads the database files in `folders` (each a `…/share/mime` folder).
    public static func load(folders: [String]) -> MIMEDatabase {
        var extensions: [String: (weight: Int, mime: String)] = [:]
        var literals: [String: (weight: Int, mime: String)] = [:]
        var aliases: [String: String] = [:]
        var parents: [String: [String]] = [:]
        // Later folders have lower precedence: process them first and let earlier ones overwrite.
        for folder in folders.reversed() {
            for line in lines(folder + "/globs2") {
                // weight:mime:glob[:flags]
                let fields = line.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
                guard fields.count >= 3, let weight = Int(fields[0]) else { continue }
                let mime = String(fields[1]).lowercased()
                let glob = String(fields[2])
                if glob.hasPrefix("*."), !glob.dropFirst(2).contains(where: { "*?[".contains($0) }) {
                    let ext = String(glob.dropFirst(2)).lowercased()
                    if let old = extensions[ext], old.weight > weight { continue }
                    extensions[ext] = (weight, mime)
                } else if !glob.contains(where: { "*?[".contains($0) }) {
                    if let old = literals[glob], old.weight > weight { continue }
                    literals[glob] = (weight, mime)
                }
            }
            for line in lines(folder + "/aliases") {
                let f = line.split(separator: " ")
                if f.count == 2 { aliases[String(f[0]).lowercased()] = String(f[1]).lowercased() }
            }
            for line in lines(folder + "/subclasses") {
                let f = line.split(separator: " ")
                if f.count == 2 {
                    let child = String(f[0]).lowercased(), parent = String(f[1]).lowercased()
                    if !(parents[child]?.contains(parent) ?? false) { parents[child, default: []].append(parent) }
                }
            }
        }
        return MIMEDatabase(
            extensions: extensions.mapValues(\.mime), literalNames: literals.mapValues(\.mime),
            aliases: aliases, parents: parents)
    }

    private static func lines(_ path: String) -> [Substring] {
        guard case .success(let bytes) = SafeFileReader.read(path: path, limit: 16 << 20) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    /// The canonical spelling of `mime` (aliases resolved, parameters dropped, lowercased).
    public func canonical(_ mime: String) -> String {
        var m = mime.lowercased()
        if let semi = m.firstIndex(of: ";") { m = String(m[..<semi]) }
        m = m.trimmingCharacters(in: .whitespaces)
        return aliases[m] ?? m
    }

    /// The MIME type a file name means by its extension (or literal name), if the database knows it.
    public func mimeType(forFileName name: String) -> String? {
        if let literal = literalNames[name] { return literal }
        let lower = name.lowercased()
        // Try the longest extension first (`.tar.gz` before `.gz`).
        var index = lower.startIndex
        while let dot = lower[index...].firstIndex(of: ".") {
            let ext = String(lower[lower.index(after: dot)...])
            if !ext.isEmpty, let mime = extensions[ext] { return mime }
            index = lower.index(after: dot)
        }
        return nil
    }

    /// The MIME type of a bare extension (no dot).
    public func mimeType(forExtension ext: String) -> String? {
        extensions[ext.lowercased()]
    }

    /// The direct parents of `mime`, including the implicit ones of the specification:
    /// every `text/*` is a `text/plain`, every other non-`inode/*` type is an `application/octet-stream`.
    public func parents(of mime: String) -> [String] {
        let m = canonical(mime)
        var result = parents[m] ?? []
        if m.hasPrefix("text/"), m != "text/plain", !result.contains("text/plain") { result.append("text/plain") }
        if !m.hasPrefix("inode/"), m != "application/octet-stream", result.isEmpty { result.append("application/octet-stream") }
        return result
    }
}
