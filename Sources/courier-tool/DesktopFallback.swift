import CourierDesktop
import CourierIRI
import CourierNames
import CourierURL
import Foundation

/// `courier open`'s hand-off to the desktop for a URL no Courier app owns (`https`, `mailto`, or a
/// scheme a desktop application handles), the way iOS hands `http` to Safari: `gio open`, else
/// `xdg-open`, found on `PATH` and started with an argv, never a shell (see docs/desktop.md).
///
/// What the desktop gets is a URI (an IRI is mapped, RFC 3987) that a browser reads as Courier
/// does: same host, port and path (`BrowserReading`), or it is refused with the reason, or handed
/// on in the one form both read the same way, which is said on standard error.
enum DesktopFallback {
    /// Opens `url` with the desktop's handler; `.handled` when the desktop started one (or, for a
    /// dry run, would be asked), `.invalidURL` when the URL may not go to the desktop, else
    /// `.noHandler` with the reason on standard error.
    static func open(_ url: String, json: Bool, dryRun: Bool = false) -> CourierExitCode {
        let uri: String
        let note: String?
        do throws(URIError) {
            (uri, note) = try BrowserReading.desktopURI(for: url)
        } catch {
            let accepted = IRI.suggestion(for: url).map { "; the URL it would accept: \($0)" } ?? ""
            let message = "not handed to the desktop: \(error) (at offset \(error.offset))\(accepted)"
            if json { JSONOutput.print(OpenOutcome(url: url, handled: false, error: JSONError(name: CourierErrorCode.invalidURL.dbusName, message: message))) }
            FileHandle.standardError.write(Data("courier open: \(CleanText.escaped(url)): \(message)\n".utf8))
            return .invalidURL
        }
        let shownURI = uri == url ? nil : uri
        if let note { FileHandle.standardError.write(Data("courier open: \(url): \(note)\n".utf8)) }
        if dryRun {
            if json {
                JSONOutput.print(OpenOutcome(url: url, uri: shownURI, dryRun: true, desktop: .bool(true)))
            } else {
                print("\(url): no Courier app handles it; would go to the desktop's handler (gio open, else xdg-open)\(shownURI.map { " as \($0)" } ?? "")")
            }
            return .handled
        }
        do {
            let result = try DesktopHandoff().open(uri)
            if json { JSONOutput.print(OpenOutcome(url: url, uri: shownURI, bundleID: "", handled: result.status.succeeded, desktop: .string(result.opener))) }
            if result.status.succeeded { return .handled }
            FileHandle.standardError.write(Data("courier open: \(url): no Courier app handles it and the desktop could not open it either (\(result.opener) \(result.status))\n".utf8))
        } catch {
            if json { JSONOutput.print(OpenOutcome(url: url, uri: shownURI, handled: false, error: JSONError(name: CourierErrorCode.noHandler.dbusName, message: error.description))) }
            FileHandle.standardError.write(Data("courier open: \(url): no Courier app handles it, and \(error)\n".utf8))
        }
        return .noHandler
    }
}
