import CourierNames
public import CourierProcess
import Foundation

/// A program found on `PATH` at run time and started with an argv, never through a shell.
///
/// Why not `Foundation.Process`: it needs a run loop to notice the exit and gives no say over the
/// child's signal dispositions; these programs are short-lived tools (`gio`, `xdg-open`,
/// `update-desktop-database`) that we start, wait for and read the exit status of, nothing more.
public struct ExternalProgram: Sendable, Equatable {
    /// The absolute path that was found.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Looks `name` up in the `PATH` of `environment` (the process's when `nil`) by the one rule
    /// (`SearchPath`). A name containing `/` is used as it is when it is an executable file.
    public static func find(_ name: String, environment: [String: String]? = nil) -> ExternalProgram? {
        if name.contains("/") {
            return Paths.isExecutableFile(name) ? ExternalProgram(path: name) : nil
        }
        let environment = environment ?? ProcessInfo.processInfo.environment
        return SearchPath.find(name, in: environment["PATH"]).map(ExternalProgram.init(path:))
    }

    /// Runs the program with `arguments` (after argv[0], which is its path) and waits for it.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment (the process's when `nil`).
    ///   - discardOutput: send its standard output to `/dev/null` (standard error is kept).
    public func run(
        _ arguments: [String], environment: [String: String]? = nil, discardOutput: Bool = false
    ) throws(DesktopIntegrationError) -> ExitStatus {
        do {
            return try Spawner.start(path: path, arguments: [path] + arguments, environment: environment,
                                     standardOutput: discardOutput ? .discard : .inherit).wait()
        } catch {
            throw .spawnFailed(program: path, errno: error.errno)
        }
    }
}
