/// A minimal editor of `mimeapps.list` (freedesktop "Association between MIME types and
/// applications"): it changes only the lines it must, and keeps every other byte as it was.
///
/// The file is kept as its lines, split on `\n` (a `\r` stays part of its line), so that joining
/// them gives back the exact bytes read. Edits:
/// - ``prefer(_:for:in:)`` puts a desktop id first in one key's list: an existing value `V` becomes
///   `ours;V` (so the previous default stays as the fallback), a missing key is added at the end
///   of its group, a missing group is appended to the file after a blank line.
/// - ``remove(_:for:in:)`` undoes exactly that: `ours;V` becomes `V` again byte for byte, a key
///   holding only our id is deleted, and a group left with no lines is deleted with the blank line
///   before it.
///
/// Register-then-unregister therefore gives back the original bytes, with two documented
/// exceptions: a file that did not end with a newline gets one, and a group that existed empty
/// before is removed with our last key.
public struct MimeAppsList: Sendable, Equatable {
    /// The two groups Courier writes to.
    public enum Group: String, Sendable, CaseIterable {
        /// `[Default Applications]`: the first installed id of a key's list is the default.
        case defaultApplications = "Default Applications"
        /// `[Added Associations]`: ids added to a type, first preferred.
        case addedAssociations = "Added Associations"

        var header: String { "[\(rawValue)]" }
    }

    private var lines: [String]

    /// Parses `bytes` (the file's content). - Throws: `nil` when they are not UTF-8.
    public init?(bytes: [UInt8]) {
        var lines: [String] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            guard let line = String(validating: bytes[start..<index], as: UTF8.self) else { return nil }
            lines.append(line)
            start = index + 1
        }
        guard let last = String(validating: bytes[start...], as: UTF8.self) else { return nil }
        lines.append(last)
        self.lines = lines
    }

    /// Parses text (tests and callers that already hold a string).
    public init(text: String) {
        self.init(bytes: Array(text.utf8))!
    }

    /// The file's bytes.
    public var bytes: [UInt8] { Array(text.utf8) }

    /// The file's text.
    public var text: String { lines.joined(separator: "\n") }

    /// Whether nothing is left (then the file can be removed instead of written empty).
    public var isEmpty: Bool { lines.allSatisfy { $0.isEmpty } }

    /// The desktop ids listed for `mimeType` in `group`, in order.
    public func desktopIDs(for mimeType: String, in group: Group) -> [String] {
        guard let range = groupRange(group), let index = keyLine(mimeType, in: range) else { return [] }
        return Self.ids(in: Self.value(of: lines[index]))
    }

    /// The desktop ids listed for `mimeType` in `[Removed Associations]`: read only, Courier never
    /// writes that group.
    public func removedDesktopIDs(for mimeType: String) -> [String] {
        guard let range = groupRange(header: "[Removed Associations]"), let index = keyLine(mimeType, in: range) else { return [] }
        return Self.ids(in: Self.value(of: lines[index]))
    }

    /// The MIME types whose list in `group` holds `desktopID`.
    public func mimeTypes(listing desktopID: String, in group: Group) -> [String] {
        guard let range = groupRange(group) else { return [] }
        return lines[range.dropFirst()].compactMap { line in
            guard let key = Self.key(of: line), Self.ids(in: Self.value(of: line)).contains(desktopID) else { return nil }
            return key
        }
    }

    /// Makes `desktopID` the first choice for `mimeType` in `group`, keeping the others after it.
    public mutating func prefer(_ desktopID: String, for mimeType: String, in group: Group) {
        guard let range = groupRange(group) else {
            appendGroup(group, line: "\(mimeType)=\(Self.format([desktopID], in: group))")
            return
        }
        guard let index = keyLine(mimeType, in: range) else {
            var insertion = range.lowerBound + 1
            for candidate in range.dropFirst() where !lines[candidate].trimmingWhitespace.isEmpty {
                insertion = candidate + 1
            }
            lines.insert("\(mimeType)=\(Self.format([desktopID], in: group))", at: insertion)
            return
        }
        let line = lines[index]
        let prefix = Self.prefix(of: line)
        let raw = Self.value(of: line)
        let ids = Self.ids(in: raw)
        if ids.first == desktopID { return }
        if ids.isEmpty {
            lines[index] = prefix + Self.format([desktopID], in: group)
        } else if ids.contains(desktopID) {
            lines[index] = prefix + Self.format([desktopID] + ids.filter { $0 != desktopID }, in: group)
        } else {
            lines[index] = prefix + desktopID + ";" + raw
        }
    }

    /// Makes `desktopID` the one default for `mimeType`, as `xdg-mime default` does: the key's line
    /// in `[Default Applications]` becomes `mimeType=desktopID` (the ids it listed are dropped, and a
    /// key spelled with blanks around `=` is rewritten without them, the one spelling xdg-mime's
    /// own reader matches), or is added at the end of the group (the group at the end of the
    /// file); nothing else changes.
    public mutating func setDefault(_ desktopID: String, for mimeType: String) {
        guard let range = groupRange(.defaultApplications), let index = keyLine(mimeType, in: range) else {
            prefer(desktopID, for: mimeType, in: .defaultApplications)
            return
        }
        lines[index] = mimeType + "=" + desktopID
    }

    /// Removes `desktopID` from `mimeType`'s list in `group`; see the type's documentation.
    public mutating func remove(_ desktopID: String, for mimeType: String, in group: Group) {
        guard let range = groupRange(group), let index = keyLine(mimeType, in: range) else { return }
        let line = lines[index]
        let prefix = Self.prefix(of: line)
        let raw = Self.value(of: line)
        let ids = Self.ids(in: raw)
        guard ids.contains(desktopID) else { return }
        let remaining = ids.filter { $0 != desktopID }
        if remaining.isEmpty {
            lines.remove(at: index)
            removeGroupIfEmpty(group)
        } else if raw.hasPrefix(desktopID + ";"), Self.ids(in: String(raw.dropFirst(desktopID.count + 1))) == remaining {
            lines[index] = prefix + String(raw.dropFirst(desktopID.count + 1))
        } else {
            lines[index] = prefix + Self.format(remaining, in: group)
        }
    }

    // MARK: Lines

    /// The indices of `group`: its header, then every line up to the next header.
    private func groupRange(_ group: Group) -> Range<Int>? { groupRange(header: group.header) }

    private func groupRange(header text: String) -> Range<Int>? {
        guard let header = lines.firstIndex(where: { $0.trimmingWhitespace == text }) else { return nil }
        var end = header + 1
        while end < lines.count, !Self.isHeader(lines[end]) { end += 1 }
        return header..<end
    }

    private func keyLine(_ mimeType: String, in range: Range<Int>) -> Int? {
        range.dropFirst().first { Self.key(of: lines[$0]) == mimeType }
    }

    private mutating func appendGroup(_ group: Group, line: String) {
        if isEmpty {
            lines = [group.header, line, ""]
            return
        }
        if lines.last != "" { lines.append("") }
        lines.removeLast()
        lines += ["", group.header, line, ""]
    }

    private mutating func removeGroupIfEmpty(_ group: Group) {
        guard let range = groupRange(group),
            range.dropFirst().allSatisfy({ lines[$0].trimmingWhitespace.isEmpty })
        else { return }
        var first = range.lowerBound
        if first > 0, lines[first - 1].trimmingWhitespace.isEmpty { first -= 1 }
        lines.removeSubrange(first..<range.lowerBound + 1)
        if lines.isEmpty { lines = [""] }
    }

    private static func isHeader(_ line: String) -> Bool {
        let trimmed = line.trimmingWhitespace
        return trimmed.hasPrefix("[") && trimmed.hasSuffix("]")
    }

    private static func key(of line: String) -> String? {
        guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { return nil }
        return String(line[..<equals]).trimmingWhitespace
    }

    /// Everything up to and including the first `=`, byte for byte.
    private static func prefix(of line: String) -> String {
        guard let equals = line.firstIndex(of: "=") else { return line }
        return String(line[...equals])
    }

    /// Everything after the first `=`, byte for byte.
    private static func value(of line: String) -> String {
        guard let equals = line.firstIndex(of: "=") else { return "" }
        return String(line[line.index(after: equals)...])
    }

    private static func ids(in value: String) -> [String] {
        value.split(separator: ";").map { String($0).trimmingWhitespace }.filter { !$0.isEmpty }
    }

    /// gio's own spelling: `a.desktop` (or `a;b`) for defaults, `a.desktop;` for added associations.
    private static func format(_ ids: [String], in group: Group) -> String {
        switch group {
        case .defaultApplications: return ids.joined(separator: ";")
        case .addedAssociations: return ids.map { $0 + ";" }.joined()
        }
    }
}
