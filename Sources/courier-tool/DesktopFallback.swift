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
            if json { JSONOutput.print(OpenOutcome(url: url, bundleID: "", handled: result.status.succeeded, desktop: .string(result.opener))) }
            if result.status.succeeded { return .handled }
            FileHandle.standardError.write(Data("courier open: \(url): no Courier app handles it and the desktop could not open it either (\(result.opener) \(result.status))\n".utf8))
        } catch {
            if json { JSONOutput.print(OpenOutcome(url: url, handled: false, error: JSONError(name: CourierErrorCode.noHandler.dbusName, message: error.description))) }
            FileHandle.standardError.write(Data("courier open: \(url): no Courier app handles it, and \(error)\n".utf8))
        }
        return .noHandler
    }

}
