import Glibc

/// The file-name rules of the shared-mime-info database (`globs2`: `weight:mime/type:pattern[:flags]`),
/// matched as the specification's "Recommended checking order" says and GIO (`xdgmime`) does:
///
/// 1. literal names (`Makefile`, `meson_options.txt`), exactly, then ignoring case unless the
///    pattern is case-sensitive (`:cs`) — a literal match is the only answer;
/// 2. simple patterns `*SUFFIX`: the longest suffix that matches wins (`*.tar.xz` over `*.xz`), first
///    on the name as it is with every pattern (`*.C` is C++, `*.c` is C), then, if none matched, on
///    the lowercased name with the case-insensitive patterns (`PHOTO.PNG`);
/// 3. only if none matched: the other patterns (`*.so.[0-9]*`, `README*`) with fnmatch, the same two ways;
///
/// then duplicates are merged (keeping the highest weight) and the types sorted by weight, highest
/// first. More than one type means the name is ambiguous and the content decides (``MIMEDatabase``).
struct MIMEGlobs: Sendable {
    struct Glob: Sendable {
        var weight: Int
        var mimeType: String
        var caseSensitive: Bool
    }

    /// Literal names, in file order.
    let literals: [(pattern: String, glob: Glob)]
    /// `*SUFFIX` patterns by suffix (as written; case-insensitive ones are lowercase in the file).
    let suffixes: [String: [Glob]]
    let longestSuffix: Int
    /// Everything else, in file order.
    let full: [(pattern: String, glob: Glob)]

    static let empty = MIMEGlobs(lines: [])

    /// From the lines of `globs2` files, highest-precedence file first (a repeated line counts once).
    init(lines: [Substring]) {
        var literals: [(String, Glob)] = []
        var suffixes: [String: [Glob]] = [:]
        var full: [(String, Glob)] = []
        var seen: Set<String> = []
        for line in lines {
            let fields = line.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count >= 3, let weight = Int(fields[0]) else { continue }
            let mime = String(fields[1]).lowercased()
            let pattern = String(fields[2])
            guard !pattern.isEmpty else { continue }
            let caseSensitive = fields.count == 4 && fields[3].split(separator: ",").contains { $0 == "cs" }
            let key = "\(weight):\(mime):\(pattern):\(caseSensitive)"
            guard seen.insert(key).inserted else { continue }
            let glob = Glob(weight: weight, mimeType: mime, caseSensitive: caseSensitive)
            switch Self.kind(of: pattern) {
            case .literal: literals.append((pattern, glob))
            case .suffix: suffixes[String(pattern.dropFirst()), default: []].append(glob)
            case .full: full.append((pattern, glob))
            }
        }
        self.literals = literals
        self.suffixes = suffixes
        longestSuffix = suffixes.keys.map(\.utf8.count).max() ?? 0
        self.full = full
    }

    private enum Kind { case literal, suffix, full }

    /// `_xdg_glob_determine_type`: a leading `*` and no other special character is a suffix.
    private static func kind(of pattern: String) -> Kind {
        var leadingStar = false
        for (i, c) in pattern.unicodeScalars.enumerated() {
            if c == "*", i == 0 {
                leadingStar = true
            } else if c == "\\" || c == "[" || c == "?" || c == "*" {
                return .full
            }
        }
        return leadingStar ? .suffix : .literal
    }

    /// The types `name` (a base name) matches, best first (empty: the name says nothing).
    func mimeTypes(forFileName name: String) -> [String] {
        guard !name.isEmpty else { return [] }
        if let hit = literals.first(where: { $0.pattern == name }) { return [hit.glob.mimeType] }
        let lower = Self.asciiLowercased(name)
        if let hit = literals.first(where: { !$0.glob.caseSensitive && $0.pattern == lower }) { return [hit.glob.mimeType] }
        var found = longestSuffixMatch(name, caseSensitiveToo: true)
        if found.isEmpty { found = longestSuffixMatch(lower, caseSensitiveToo: false) }
        if found.isEmpty { found = full.filter { fnmatch($0.pattern, name, 0) == 0 }.map(\.glob) }
        if found.isEmpty { found = full.filter { !$0.glob.caseSensitive && fnmatch($0.pattern, lower, 0) == 0 }.map(\.glob) }
        // Merge duplicates (highest weight), then a stable sort by weight.
        var merged: [Glob] = []
        for glob in found.prefix(10) {
            if let i = merged.firstIndex(where: { $0.mimeType == glob.mimeType }) {
                merged[i].weight = max(merged[i].weight, glob.weight)
            } else {
                merged.append(glob)
            }
        }
        return merged.enumerated().sorted { a, b in
            a.element.weight != b.element.weight ? a.element.weight > b.element.weight : a.offset < b.offset
        }.map(\.element.mimeType)
    }

    /// The globs of the longest suffix of `name` that has eligible ones.
    private func longestSuffixMatch(_ name: String, caseSensitiveToo: Bool) -> [Glob] {
        let utf8 = Array(name.utf8)
        var length = min(utf8.count, longestSuffix)
        while length > 0 {
            let suffix = String(decoding: utf8[(utf8.count - length)...], as: UTF8.self)
            if let globs = suffixes[suffix] {
                let eligible = globs.filter { caseSensitiveToo || !$0.caseSensitive }
                if !eligible.isEmpty { return Array(eligible.prefix(10)) }
            }
            length -= 1
        }
        return []
    }

    static func asciiLowercased(_ s: String) -> String {
        String(decoding: s.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

extension MIMEGlobs {
    /// Whether some glob names `mime`.
    func knows(_ mime: String) -> Bool {
        literals.contains { $0.glob.mimeType == mime } || full.contains { $0.glob.mimeType == mime }
            || suffixes.values.contains { $0.contains { $0.mimeType == mime } }
    }
}
