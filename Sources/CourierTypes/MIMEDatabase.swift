import CourierNames
import Glibc

/// The freedesktop shared-mime-info database (the one every Linux desktop ships), read from its
/// source files: which MIME types a file name means (`globs2`, ``MIMEGlobs``), what content means
/// (`magic`, ``MIMEMagic``), which MIME types are aliases (`aliases`), and which are subclasses of
/// which (`subclasses`).
///
/// ``guess(fileName:contents:)`` is the specification's "Recommended checking order" as GIO's
/// `g_content_type_guess` implements it, so Courier names a file's type as the file manager does.
/// Courier reads the files itself rather than linking libglib: the broker stays free of GLib's
/// main-loop and type-system start-up, and the database's rules are all it needs; GIO
/// (`gio info -a standard::content-type`) is the oracle of the tests (docs/manifest.md).
///
/// Read once; immutable afterwards. Missing files mean an empty database, not an error.
public final class MIMEDatabase: Sendable {
    let globs: MIMEGlobs
    let magic: MIMEMagic
    /// Alias → canonical MIME type.
    let aliases: [String: String]
    /// MIME type → parents.
    let parents: [String: [String]]

    init(globs: MIMEGlobs, magic: MIMEMagic, aliases: [String: String], parents: [String: [String]]) {
        self.globs = globs
        self.magic = magic
        self.aliases = aliases
        self.parents = parents
    }

    /// An empty database (when shared-mime-info is not installed).
    public static let empty = MIMEDatabase(globs: .empty, magic: .empty, aliases: [:], parents: [:])

    /// The database of this machine: `$XDG_DATA_HOME/mime` and each `$XDG_DATA_DIRS/mime`
    /// (default `/usr/local/share:/usr/share`), earlier folders taking precedence.
    public static let system = load(folders: CourierLayout.current().mimeFolders)

    /// How many leading bytes of a file the content rules read: as GIO, the largest extent of a
    /// magic rule, at most 4096.
    public var sniffLength: Int { min(max(magic.extent, 1), 4096) }

    /// Reads the database files in `folders` (each a `…/share/mime` folder), earlier ones first.
    public static func load(folders: [String]) -> MIMEDatabase {
        var globLines: [Substring] = []
        var rules: [MIMEMagic.Rule] = []
        var extent = 0
        var aliases: [String: String] = [:]
        var parents: [String: [String]] = [:]
        for folder in folders {
            globLines += lines(folder + "/globs2")
            if case .success(let bytes) = SafeFileReader.read(path: folder + "/magic", limit: 16 << 20), let m = MIMEMagic.parse(bytes) {
                rules += m.rules
                extent = max(extent, m.extent)
            }
        }
        // Earlier folders win: read the later ones first and let earlier ones overwrite.
        for folder in folders.reversed() {
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
        // Several folders: the rules of all of them, highest priority first (stable within one).
        if folders.count > 1 {
            rules = rules.enumerated().sorted { $0.element.priority != $1.element.priority ? $0.element.priority > $1.element.priority : $0.offset < $1.offset }.map(\.element)
        }
        return MIMEDatabase(
            globs: MIMEGlobs(lines: globLines), magic: MIMEMagic(rules: rules, extent: extent),
            aliases: aliases, parents: parents)
    }

    private static func lines(_ path: String) -> [Substring] {
        guard case .success(let bytes) = SafeFileReader.read(path: path, limit: 16 << 20) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    /// The canonical spelling of `mime` (aliases resolved, parameters dropped, lowercased).
    public func canonical(_ mime: String) -> String {
        var m = MIMEGlobs.asciiLowercased(mime)
        if let semi = m.firstIndex(of: ";") { m = String(m[..<semi]) }
        m = String(m.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        if let known = aliases[m] { return known }
        if let other = Self.otherNames[m] { return aliases[other] ?? other }
        return m
    }

    /// MIME names other sources use (libmagic, registries) for types the database spells otherwise
    /// and does not list as aliases; a test checks each left side is unknown to the database and each
    /// right side known.
    static let otherNames: [String: String] = [
        "video/x-flc": "video/x-flic",
        "image/x-portable-greymap": "image/x-portable-graymap",
        "font/sfnt": "font/ttf",
        "application/vnd.ms-office": "application/x-ole-storage",
    ]

    /// Whether the database itself knows `mime` (as a type, an alias, a glob's or a rule's type;
    /// ``otherNames`` not consulted).
    public func knows(_ mime: String) -> Bool {
        let lower = MIMEGlobs.asciiLowercased(mime)
        let m = aliases[lower] ?? lower
        return parents[m] != nil || aliases.values.contains(m) || globs.knows(m) || magic.rules.contains { $0.mimeType == m }
    }

    /// The MIME types a file name means, best first (the base name only; empty: none).
    public func mimeTypes(forFileName name: String) -> [String] {
        globs.mimeTypes(forFileName: Paths.lastComponent(of: name))
    }

    /// The best MIME type a file name means, if any.
    public func mimeType(forFileName name: String) -> String? {
        mimeTypes(forFileName: name).first
    }

    /// The MIME type of a bare extension (no dot, any case).
    public func mimeType(forExtension ext: String) -> String? {
        guard !ext.isEmpty else { return nil }
        return globs.mimeTypes(forFileName: "x." + ext).first
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

    /// Whether `mime` is `base` or a subclass of it, transitively (`xdg_mime_mime_type_subclass`):
    /// aliases resolved; `text/*` is under `text/plain`, everything but `inode/*` under
    /// `application/octet-stream`.
    public func isSubclass(_ mime: String, of base: String) -> Bool {
        let b = canonical(base)
        var pending = [canonical(mime)]
        var seen: Set<String> = []
        while let m = pending.popLast() {
            if m == b { return true }
            guard seen.insert(m).inserted else { continue }
            pending += parents(of: m)
        }
        return false
    }

    // MARK: - The checking order

    /// What the database says about a file, and on what evidence.
    public struct Guess: Sendable, Equatable {
        public enum Evidence: String, Sendable, Equatable {
            /// One type by name (the content is not read, as in GIO).
            case name
            /// Several types by name; the content chose among them, or the first was taken.
            case nameAmongSeveral
            /// No type by name; a magic rule matched.
            case magic
            /// No type by name, no rule: the bytes look like text (`text/plain`).
            case text
            /// No type by name, no rule, not text (`application/octet-stream`).
            case binary
            /// Nothing to go on: no type by name and no content (or empty content).
            case nothing
        }

        public var mimeType: String
        public var evidence: Evidence
        /// The types the name means, best first.
        public var nameCandidates: [String]
        /// The magic rule that matched the content, with its priority, if the content was examined.
        public var magicMatch: String?
        public var magicPriority: Int
    }

    /// GIO's `g_content_type_guess` on this database: one type by name decides; otherwise the
    /// magic rules (the first matching, highest priority first) decide among the name's types — a
    /// rule of priority 80 or more outright, else the first name type that is a subclass of what
    /// the content is — or, with no name type, alone; with no rule either, text or binary.
    /// `contents` is the file's first bytes (``sniffLength`` is enough); nil or empty: not read.
    public func guess(fileName: String?, contents: UnsafeRawBufferPointer?) -> Guess {
        let candidates = fileName.map { mimeTypes(forFileName: $0) } ?? []
        if candidates.count == 1 {
            return Guess(mimeType: candidates[0], evidence: .name, nameCandidates: candidates, magicMatch: nil, magicPriority: 0)
        }
        guard let contents, contents.count > 0 else {
            return Guess(mimeType: candidates.first ?? "application/octet-stream", evidence: candidates.isEmpty ? .nothing : .nameAmongSeveral,
                         nameCandidates: candidates, magicMatch: nil, magicPriority: 0)
        }
        let data = UnsafeRawBufferPointer(rebasing: contents.prefix(sniffLength))
        let matched = magic.match(data)
        var sniffed = matched?.mimeType
        // GIO never takes a desktop entry by content when the file has a name: a launcher must say so.
        if fileName != nil, sniffed == "application/x-desktop" { sniffed = "text/plain" }
        if sniffed == nil, Self.looksLikeText(data) { sniffed = "text/plain" }
        if candidates.isEmpty {
            if let matched, sniffed == matched.mimeType {
                return Guess(mimeType: matched.mimeType, evidence: .magic, nameCandidates: [], magicMatch: matched.mimeType, magicPriority: matched.priority)
            }
            return Guess(mimeType: sniffed ?? "application/octet-stream", evidence: sniffed == nil ? .binary : .text,
                         nameCandidates: [], magicMatch: matched?.mimeType, magicPriority: matched?.priority ?? 0)
        }
        var chosen = candidates[0]
        if let sniffed {
            if let matched, matched.priority >= 80, sniffed == matched.mimeType {
                chosen = sniffed
            } else if let fit = candidates.first(where: { isSubclass($0, of: sniffed) }) {
                chosen = fit
            }
        }
        return Guess(mimeType: chosen, evidence: .nameAmongSeveral, nameCandidates: candidates, magicMatch: matched?.mimeType, magicPriority: matched?.priority ?? 0)
    }

    /// Text or binary, as GIO decides when no rule matched: text when the first 128 bytes hold no
    /// control character but tab, newline and carriage return (`xdgmime`), or when no byte at all
    /// is a control character other than white space and backspace (`gcontenttype`).
    static func looksLikeText(_ data: UnsafeRawBufferPointer) -> Bool {
        var head = true
        for byte in data.prefix(128) where byte < 32 && byte != 9 && byte != 10 && byte != 13 {
            head = false
            break
        }
        return head || hasNoControlBytes(data)
    }

    /// GIO's `looks_like_text`: no control character but white space and backspace anywhere.
    static func hasNoControlBytes(_ data: UnsafeRawBufferPointer) -> Bool {
        !data.contains { ($0 < 32 || $0 == 127) && !($0 >= 8 && $0 <= 13) }
    }
}
