import CourierNames
import CourierDesktop
import Foundation

/// `courier open`'s hand-off to the desktop for a URL no Courier app owns (`https`, `mailto`, or a
/// scheme a desktop application handles), the way iOS hands `http` to Safari: `gio open`, else
/// `xdg-open`, found on `PATH` and started with an argv, never a shell (see docs/desktop.md).
enum DesktopFallback {
    /// Opens `url` with the desktop's handler; `.handled` when the desktop started one, else
    /// `.noHandler` with the reason on standard error.
    static func open(_ url: String, json: Bool) -> CourierExitCode {
        do {
            let result = try DesktopHandoff().open(url)
            if json { printJSON(["url": url, "handled": result.status.succeeded, "bundle_id": "", "desktop": result.opener]) }
            if result.status.succeeded { return .handled }
            FileHandle.standardError.write(Data("courier open: \(url): no Courier app handles it and the desktop could not open it either (\(result.opener) \(result.status))\n".utf8))
        } catch {
            if json { printJSON(["url": url, "handled": false, "error": ["name": "org.courier.Error.NoHandler", "message": error.description]]) }
            FileHandle.standardError.write(Data("courier open: \(url): no Courier app handles it, and \(error)\n".utf8))
        }
        return .noHandler
    }

    private static func printJSON(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}
