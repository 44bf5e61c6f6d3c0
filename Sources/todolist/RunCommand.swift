import ArgumentParser
import Courier
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `todolist run` (the default): the app itself — what the broker launches. Owns
/// `com.acme.todolist` on the session bus, checks in, stores each URL it receives.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the todolist app (the broker launches it like this; it serves until the bus goes away)."
    )

    @Option(name: .long, help: "The bundle id to own (default: COURIER_BUNDLE_ID, else \(TodoListCommand.bundleID)).")
    var bundleID: String?

    func run() async throws {
        if await !Self.serve(bundleID: bundleID) { throw ExitCode(1) }
    }

    /// The app: serves until the bus goes away; false (after one line on stderr) when it cannot start.
    static func serve(bundleID: String?) async -> Bool {
        // A closed stdout (bus activation, a detached broker) must not kill the app mid-request.
        signal(SIGPIPE, SIG_IGN)
        let id = bundleID ?? TodoListCommand.currentBundleID
        let delegate = TodoAppDelegate(store: TodoStore(bundleID: id))
        do {
            try await Application(bundleID: id, version: TodoListCommand.version, delegate: delegate).run()
            return true
        } catch {
            printLine("todolist: \(error.message)", to: STDERR_FILENO)
            return false
        }
    }
}
