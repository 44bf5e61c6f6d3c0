import CourierTypes
import CourierNames
import Foundation

/// How Courier starts an app: `CourierLaunchArguments`, an argv array, never run through a shell.
///
/// `argv[0]` containing a `/` is a path: absolute, or relative to the folder of the manifest
/// (resolved when the manifest is loaded). A bare name is looked up on `PATH` when the app is
/// launched, like `execvp` does.
public struct LaunchCommand: Sendable, Hashable {
    /// Where the executable is.
    public enum Executable: Sendable, Hashable {
        /// An absolute path (already resolved against the manifest's folder).
        case path(String)
        /// A bare name, to look up on `PATH` at launch time.
        case searchPath(String)
    }

    /// The argv exactly as the manifest wrote it.
    public var arguments: [String]
    /// argv[0], resolved.
    public var executable: Executable

    public init(arguments: [String], executable: Executable) {
        self.arguments = arguments
        self.executable = executable
    }

    /// Resolves argv[0] the documented way. `arguments` must not be empty.
    public init(arguments: [String], manifestDirectory: String) {
        precondition(!arguments.isEmpty, "a launch command needs argv[0]")
        let first = arguments[0]
        if first.hasPrefix("/") {
            executable = .path(Paths.normalize(first))
        } else if first.contains("/") {
            executable = .path(Paths.normalize(Paths.join(manifestDirectory, first)))
        } else {
            executable = .searchPath(first)
        }
        self.arguments = arguments
    }

    /// Finds the executable: the resolved path, or the first executable file named argv[0] in the
    /// colon-separated `searchPath` (`SearchPath`: relative and empty elements are skipped, never
    /// taken as the current folder).
    public func resolvedExecutable(searchPath: String?) -> String? {
        switch executable {
        case .path(let p): p
        case .searchPath(let name): SearchPath.find(name, in: searchPath)
        }
    }

    /// The argv as one line for people (shell-quoted only for display; Courier never uses a shell).
    public var displayString: String {
        arguments.map { arg in
            let safe = !arg.isEmpty && arg.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
            return safe ? arg : "'" + arg.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}
