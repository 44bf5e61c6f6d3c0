/// The desktop entry Courier writes for one app: `$XDG_DATA_HOME/applications/courier-<id>.desktop`.
///
/// It declares `x-scheme-handler/<scheme>` for each scheme the app owns, so `xdg-open`, `gio open`,
/// browsers and terminals hand those URLs to Courier; `NoDisplay=true` keeps it out of menus (it is
/// a URL handler, not something to start by hand). The `X-Courier-BundleIdentifier` key marks the
/// file as Courier's: Courier never replaces or removes an entry without it.
public struct DesktopEntry: Sendable, Equatable {
    /// The key that marks a desktop entry as written by Courier.
    public static let markerKey = "X-Courier-BundleIdentifier"

    public let app: DesktopApp
    public let exec: DesktopExec

    public init(app: DesktopApp, exec: DesktopExec) {
        self.app = app
        self.exec = exec
    }

    /// The file's text, valid per `desktop-file-validate`.
    public var text: String {
        let schemes = app.schemes.map { "\($0):" }.joined(separator: ", ")
        var lines = [
            "[Desktop Entry]",
            "Type=Application",
            "Version=1.4",
            "Name=\(Self.escape(app.name))",
            "Comment=\(Self.escape("Opens \(schemes) links in \(app.name) through Courier"))",
            "Exec=\(Self.escape(exec.unescapedValue))",
            "Terminal=false",
            "NoDisplay=true",
        ]
        if !app.mimeTypes.isEmpty {
            lines.append("MimeType=" + app.mimeTypes.map { $0 + ";" }.joined())
        }
        lines.append("\(Self.markerKey)=\(app.bundleIdentifier)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The general escapes of a `string` / `localestring` value: `\\`, `\n`, `\t`, `\r`, and `\s`
    /// for a leading space. Other control characters cannot be written and are dropped.
    static func escape(_ value: String) -> String {
        var escaped = ""
        for (offset, scalar) in value.unicodeScalars.enumerated() {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            case " " where offset == 0: escaped += "\\s"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// The bundle identifier in a desktop entry's `X-Courier-BundleIdentifier` key (in its
    /// `[Desktop Entry]` group), or `nil` when the entry is not Courier's.
    public static func courierBundleIdentifier(in text: String) -> String? {
        var inMainGroup = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("[") {
                inMainGroup = line == "[Desktop Entry]"
                continue
            }
            guard inMainGroup, let equals = line.firstIndex(of: "=") else { continue }
            if String(line[..<equals]).trimmingWhitespace == markerKey {
                return String(line[line.index(after: equals)...]).trimmingWhitespace
            }
        }
        return nil
    }
}
