import CourierNames
#if canImport(Glibc)
import Glibc
#endif

/// The app a sandbox says a process belongs to, read as xdg-desktop-portal reads it
/// (docs/security.md, "Sandboxes"):
/// - Flatpak: the `name` key of the `[Application]` group of `/.flatpak-info` in the process's
///   own root, read from outside through `/proc/PID/root`. Flatpak binds it read-only into every
///   sandbox it builds, so the app inside cannot change it.
/// - Snap: the process's cgroup, a unit named `snap.NAME.…` (`snap.NAME.APP-….scope`,
///   `snap.NAME.APP.service`): NAME is the snap.
///
/// A sandboxed process is its sandbox's app and no other, and may not change the registry (a
/// manifest it registered could launch anything outside its sandbox). `systemdApplication` reads
/// a third label, the app id in a systemd app unit's name (`app-gnome-org.gnome.Epiphany-1234.scope`):
/// that is no sandbox — any process of the user can start a unit with any name — so it is shown in
/// refusals and decides nothing.
public enum SandboxIdentity: Sendable, Hashable, CustomStringConvertible {
    /// `application` is nil when the sandbox's `.flatpak-info` names no valid application.
    case flatpak(application: String?)
    case snap(name: String)

    public var description: String {
        switch self {
        case .flatpak(let application): "the Flatpak sandbox of \(application ?? "an unnamed application")"
        case .snap(let name): "the Snap sandbox of \(name)"
        }
    }

    /// The sandbox `pid` runs in; nil when it runs in none Courier knows, or is gone.
    public static func of(pid: Int32) -> SandboxIdentity? {
        if let info = flatpakInfo(of: pid) { return .flatpak(application: flatpakApplication(info: info)) }
        if let cgroup = ProcessIdentity.readSmallFile("/proc/\(pid)/cgroup", limit: 16 << 10), let name = snapName(cgroup: cgroup) {
            return .snap(name: name)
        }
        return nil
    }

    /// Whether a process in this sandbox may be the app `bundleID`, launched by `arguments`:
    /// a Flatpak sandbox of exactly that bundle id whose manifest runs it with `flatpak run`, or a
    /// snap the manifest runs (`/snap/bin/NAME[.APP]`, `snap run NAME[.APP]`).
    public func mayBe(_ bundleID: String, launchedBy arguments: [String]) -> Bool {
        let program = arguments.first.map(Interpreter.baseName) ?? ""
        let rest = arguments.dropFirst()
        switch self {
        case .flatpak(let application):
            return application == bundleID && program == "flatpak" && rest.contains("run") && rest.contains(bundleID)
        case .snap(let name):
            let launched: String? = if arguments.first?.hasPrefix("/snap/bin/") == true { program }
                else if program == "snap", rest.first == "run" { rest.dropFirst().first { !$0.hasPrefix("-") } }
                else { nil }
            return launched.map { $0.split(separator: ".", maxSplits: 1).first.map(String.init) == name } ?? false
        }
    }

    /// The text of `/proc/PID/root/.flatpak-info` when it is a regular file (not a link), at most
    /// 64 KiB; nil when there is none or the process cannot be inspected.
    static func flatpakInfo(of pid: Int32) -> String? {
        let root = open("/proc/\(pid)/root", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { return nil }
        defer { close(root) }
        let file = openat(root, ".flatpak-info", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return String(decoding: ProcessIdentity.readAll(file, limit: 64 << 10), as: UTF8.self)
    }

    /// `name` in the `[Application]` group of a `.flatpak-info` key file, when it is a valid
    /// bundle id (Flatpak's application ids are D-Bus names, as bundle ids are).
    public static func flatpakApplication(info: String) -> String? {
        var group = ""
        for raw in info.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = String(raw).trimmingBlanks()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") { group = String(line.dropFirst().dropLast()); continue }
            guard group == "Application", let equals = line.firstIndex(of: "=") else { continue }
            guard String(line[..<equals]).trimmingBlanks() == "name" else { continue }
            let value = String(line[line.index(after: equals)...]).trimmingBlanks()
            return (try? BundleIdentifier(value)) != nil ? value : nil
        }
        return nil
    }

    /// The snap of a `/proc/PID/cgroup` text: the last unit of the unified (`0::`) or systemd
    /// (`name=systemd`) hierarchy named `snap.NAME.…`, as xdg-desktop-portal's cgroup check.
    public static func snapName(cgroup: String) -> String? {
        for unit in units(cgroup: cgroup).reversed() where unit.hasPrefix("snap.") {
            let parts = unit.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count >= 3, !parts[1].isEmpty, unit.hasSuffix(".scope") || unit.hasSuffix(".service") else { continue }
            return String(parts[1])
        }
        return nil
    }

    /// The app id in the name of the systemd user unit of a `/proc/PID/cgroup` text (the first
    /// unit below `user@UID.service` that is not a slice), by the rules of
    /// systemd.io/DESKTOP_ENVIRONMENTS that xdg-desktop-portal follows:
    /// `app[-LAUNCHER]-APPID-RANDOM.scope` (or `.slice`) and `app[-LAUNCHER]-APPID[@RANDOM].service`,
    /// `\xNN` escapes undone; nil when there is no such unit or its app id is not a valid bundle id.
    public static func systemdApplication(cgroup: String) -> String? {
        let path = units(cgroup: cgroup)
        guard let manager = path.firstIndex(where: { $0.hasPrefix("user@") && $0.hasSuffix(".service") }),
              let unit = path[(manager + 1)...].first(where: { !$0.hasSuffix(".slice") })
        else { return nil }
        return systemdApplication(unit: unit)
    }

    /// The app id in one unit name (see `systemdApplication(cgroup:)`).
    public static func systemdApplication(unit: String) -> String? {
        guard unit.hasPrefix("app-") else { return nil }
        let name = unit.dropFirst("app-".count)
        var candidates: [Substring] = []
        for suffix in [".scope", ".slice"] where name.hasSuffix(suffix) {
            // APPID-RANDOM: RANDOM is what follows the last '-', letters and digits only.
            let body = name.dropLast(suffix.count)
            for start in launcherStarts(body) {
                let rest = body[start...]
                guard let dash = rest.lastIndex(of: "-"), dash > rest.startIndex,
                      rest[rest.index(after: dash)...].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { continue }
                candidates.append(rest[..<dash])
                break
            }
        }
        if name.hasSuffix(".service") {
            let body = name.dropLast(".service".count)
            for start in launcherStarts(body) {
                var rest = body[start...]
                if let at = rest.lastIndex(of: "@"), rest[rest.index(after: at)...].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                    rest = rest[..<at]
                } else if rest.hasSuffix("-autostart") {
                    rest = rest.dropLast("-autostart".count)
                }
                guard !rest.isEmpty else { continue }
                candidates.append(rest)
                break
            }
        }
        guard let escaped = candidates.first, let id = unescape(escaped), (try? BundleIdentifier(id)) != nil else { return nil }
        return id
    }

    /// Where the app id may start in `body`: after an optional `LAUNCHER-` (letters and digits),
    /// tried first, then at the start.
    private static func launcherStarts(_ body: Substring) -> [Substring.Index] {
        let launcher = body.prefix { $0.isASCII && ($0.isLetter || $0.isNumber) }
        guard !launcher.isEmpty, launcher.endIndex < body.endIndex, body[launcher.endIndex] == "-" else { return [body.startIndex] }
        return [body.index(after: launcher.endIndex), body.startIndex]
    }

    /// systemd's `\xNN` escapes undone; nil when one is malformed.
    private static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "\\") {
                let hexStart = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex)
                guard utf8.index(after: index) < utf8.endIndex, utf8[utf8.index(after: index)] == UInt8(ascii: "x"),
                      let hexStart, let hexEnd = utf8.index(hexStart, offsetBy: 2, limitedBy: utf8.endIndex),
                      let value = UInt8(String(decoding: utf8[hexStart..<hexEnd], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
                index = hexEnd
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The units on the path of the unified hierarchy (`0::/a/b`), else of `name=systemd`.
    private static func units(cgroup: String) -> [String] {
        var fallback: [String] = []
        for line in cgroup.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let components = fields[2].split(separator: "/").map(String.init)
            if fields[0] == "0" && fields[1].isEmpty { return components }
            if fields[1] == "name=systemd" { fallback = components }
        }
        return fallback
    }
}
