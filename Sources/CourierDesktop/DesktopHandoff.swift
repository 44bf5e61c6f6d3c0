import CourierNames

/// Out of Courier to the desktop: opens a URL that no Courier app owns with the desktop's own
/// handler, the way iOS hands `http` to Safari.
///
/// The opener (`gio open`, else `xdg-open`) is looked up on `PATH` at run time and started with an
/// argv through `posix_spawn`, never a shell, so the URL reaches it as one argument, byte for byte.
/// `gio` comes first: it reads `mimeapps.list` itself and launches the handler without a shell
/// (xdg-utils' generic path runs the handler in the foreground and waits for it to exit).
///
/// Loops are the caller's concern: Courier's own desktop entries run `courier open
/// --desktop-entry`, which never hands back to the desktop.
public struct DesktopHandoff: Sendable {
    /// A program that opens a URL with the desktop's default handler.
    public struct Opener: Sendable, Equatable {
        /// The program's name, looked up on `PATH`.
        public let program: String
        /// Its arguments before the URL.
        public let arguments: [String]

        public init(program: String, arguments: [String]) {
            self.program = program
            self.arguments = arguments
        }

        /// `gio open -- URL` (GLib; `--` ends its options).
        public static let gio = Opener(program: "gio", arguments: ["open", "--"])
        /// `xdg-open URL` (xdg-utils; it takes no `--`, which is safe because an absolute URL
        /// starts with a letter, never with `-`).
        public static let xdgOpen = Opener(program: "xdg-open", arguments: [])
    }

    /// What was run and how it ended.
    public struct Result: Sendable, Equatable {
        /// The absolute path of the opener that ran.
        public let opener: String
        /// Its exit status: 0 when the desktop found a handler and started it.
        public let status: ExitStatus
    }

    /// The openers to try, first found on `PATH` wins.
    public var openers: [Opener]
    /// The openers' environment (the process's when `nil`); also the `PATH` searched.
    public var environment: [String: String]?

    public init(openers: [Opener] = [.gio, .xdgOpen], environment: [String: String]? = nil) {
        self.openers = openers
        self.environment = environment
    }

    /// Opens `url` with the first opener found and waits for it to finish; when it fails (`gio`
    /// knows only GIO's handlers and says "Operation not supported" where `xdg-open` still has
    /// `$BROWSER` or the desktop's own tool), the next one found is tried. The last result is
    /// returned.
    ///
    /// - Throws: ``DesktopIntegrationError/notAnAbsoluteURL(_:)`` when `url` does not start with
    ///   `scheme:` (or holds a NUL byte, which no argv can carry);
    ///   ``DesktopIntegrationError/noDesktopOpener(searched:)`` when no opener is on `PATH`.
    public func open(_ url: String) throws(DesktopIntegrationError) -> Result {
        guard let colon = url.firstIndex(of: ":"), URLScheme.isValid(String(url[..<colon])),
            !url.utf8.contains(0)
        else { throw .notAnAbsoluteURL(url) }
        var last: Result?
        for opener in openers {
            guard let program = ExternalProgram.find(opener.program, environment: environment) else { continue }
            let status = try program.run(opener.arguments + [url], environment: environment)
            last = Result(opener: program.path, status: status)
            if status.succeeded { break }
        }
        guard let last else { throw .noDesktopOpener(searched: openers.map(\.program)) }
        return last
    }
}
