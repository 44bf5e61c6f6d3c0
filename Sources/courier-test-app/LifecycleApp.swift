import Courier
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `courier-test-app lifecycle [--will-terminate-delay-ms N] [--ignore-sigterm] [--version V]
/// [--open-delay-ms N] [--hang-on TEXT] [--hold-while PATH] [--linger-ms N] [--exit-at-once N] [--accept-arguments]
/// [--record-arguments ARG…]`: a Courier app for the life-cycle tests
/// (docs/lifecycle.md). It takes N ms over each URL, never answers a URL containing TEXT (a hung
/// app), answers a URL only once PATH does not exist (a slow app the test releases; it records
/// `hold URL` when the URL arrives), leaves its bus connection open N ms after it exits when told to terminate (a `sleep`
/// child inherits its sockets: the bus sees the instance leave late), preserves which URLs it handled,
/// restores them, and records in `$COURIER_CONTAINER/events` one line per thing that happened to
/// it: `launch PID`, `restored URL,URL…` (or `refused VERSION`), `open URL`, `will-terminate PID`
/// and, once its delegate has returned, `will-terminate-done PID`; `arguments A B` (the arguments
/// after `--record-arguments`), `finished-launching url=none by-broker=true|false` (a launch without a URL), and
/// `handle-arguments A B` for arguments handed to the running app (taken with
/// `--accept-arguments`, else ignored). `--exit-at-once N` says so on standard error and exits with status N before checking in.
///
/// `courier-test-app save-loop BYTES`: preserves a state of BYTES bytes (all equal to the save's
/// number modulo 256) over and over, for the test that kills a save midway.
enum LifecycleApp {
    static let eventsFile = "events"

    static func run(arguments: [String]) async throws {
        var delay = 0
        var openDelay = 0
        var hangOn: String?
        var holdWhile: String?
        var linger = 0
        var version = "1"
        var exitAtOnce: Int32?
        var acceptArguments = false
        var recorded: [String]?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--will-terminate-delay-ms": delay = Int(remaining.popFirst() ?? "") ?? 0
            case "--ignore-sigterm": signal(SIGTERM, SIG_IGN)
            case "--version": version = remaining.popFirst() ?? version
            case "--open-delay-ms": openDelay = Int(remaining.popFirst() ?? "") ?? 0
            case "--hang-on": hangOn = remaining.popFirst()
            case "--hold-while": holdWhile = remaining.popFirst()
            case "--linger-ms": linger = Int(remaining.popFirst() ?? "") ?? 0
            case "--exit-at-once": exitAtOnce = Int32(remaining.popFirst() ?? "")
            case "--accept-arguments": acceptArguments = true
            case "--record-arguments": recorded = Array(remaining); remaining = []
            default: throw LoadError("courier-test-app lifecycle: unknown option \(argument)")
            }
        }
        let events = try RecorderApp.openAppending(try container() + "/" + eventsFile)
        RecorderApp.append("launch \(getpid())\n", to: events)
        if let recorded { RecorderApp.append("arguments \(recorded.joined(separator: " "))\n", to: events) }
        if let exitAtOnce {
            FileHandle.standardError.write(Data("exiting at once with status \(exitAtOnce)\n".utf8))
            exit(exitAtOnce)
        }
        let delegate = Delegate(events: events, willTerminateDelay: .milliseconds(delay), openDelay: .milliseconds(openDelay), hangOn: hangOn, holdWhile: holdWhile, lingerMilliseconds: linger, acceptArguments: acceptArguments)
        try await Application(version: version, delegate: delegate).run()
    }

    static func saveLoop(arguments: [String]) async throws {
        guard let size = arguments.first.flatMap(Int.init), size > 0 else { throw LoadError("usage: courier-test-app save-loop BYTES") }
        let saver = Saver(size: size)
        let application = try Application(version: "1", delegate: saver)
        while true {
            try await application.preserveState()
            saver.count.add(1, ordering: .relaxed)
        }
    }

    static func container() throws -> String {
        guard let container = ProcessInfo.processInfo.environment["COURIER_CONTAINER"], container.hasPrefix("/") else {
            throw LoadError("courier-test-app: COURIER_CONTAINER is not set; the app must be launched by courierd")
        }
        return container
    }

    final class Delegate: ApplicationDelegate {
        let events: Int32
        let willTerminateDelay: Duration
        let openDelay: Duration
        let hangOn: String?
        let holdWhile: String?
        let handled = Mutex<[String]>([])

        let lingerMilliseconds: Int
        let acceptArguments: Bool

        init(events: Int32, willTerminateDelay: Duration, openDelay: Duration = .zero, hangOn: String? = nil, holdWhile: String? = nil, lingerMilliseconds: Int = 0, acceptArguments: Bool = false) {
            self.holdWhile = holdWhile
            self.acceptArguments = acceptArguments
            self.events = events
            self.willTerminateDelay = willTerminateDelay
            self.openDelay = openDelay
            self.hangOn = hangOn
            self.lingerMilliseconds = lingerMilliseconds
        }

        /// Starts `sleep` with every socket of this process as its descriptors 100, 101, …: the bus
        /// connection outlives this process by `lingerMilliseconds`.
        func lingerOnTheBus() {
            let sockets = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { name -> Int32? in
                guard let fd = Int32(name), fd > 2, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                      target.hasPrefix("socket:") else { return nil }
                return fd
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            for (index, fd) in sockets.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, Int32(100 + index)) }
            let arguments = ["/bin/sleep", String(format: "%.3f", Double(lingerMilliseconds) / 1000)]
            var argv = arguments.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            _ = posix_spawn(&pid, "/bin/sleep", &actions, nil, &argv, environ)
        }

        func open(_ url: String, options: OpenURLOptions, application: Application) async -> Bool {
            if let hangOn, url.contains(hangOn) {
                RecorderApp.append("hang \(url)\n", to: events)
                while true { try? await Task.sleep(for: .seconds(3600)) }
            }
            if let holdWhile {
                RecorderApp.append("hold \(url)\n", to: events)
                while FileManager.default.fileExists(atPath: holdWhile) { try? await Task.sleep(for: .milliseconds(50)) }
            }
            if openDelay > .zero { try? await Task.sleep(for: openDelay) }
            handled.withLock { $0.append(url) }
            RecorderApp.append("open \(url)\n", to: events)
            return true
        }

        func didFinishLaunching(_ application: Application, options: ApplicationLaunchOptions) -> Bool {
            // Only a launch for nothing in particular: the other tests read the events of launches for a URL as they were.
            if options.url == nil { RecorderApp.append("finished-launching url=none by-broker=\(options.launchedByBroker)\n", to: events) }
            return true
        }

        func handleArguments(_ arguments: [String], application: Application) async -> Bool {
            RecorderApp.append("handle-arguments \(arguments.joined(separator: " "))\n", to: events)
            return acceptArguments
        }

        func shouldSaveApplicationState(_ application: Application) async -> Bool { true }

        func willEncodeRestorableState(_ application: Application, coder: inout RestorableStateCoder) async {
            try? coder.encode(handled.withLock { $0 }, forKey: "handled")
        }

        func shouldRestoreApplicationState(_ application: Application, coder: RestorableStateCoder) async -> Bool {
            guard coder.bundleVersion == application.version else {
                RecorderApp.append("refused \(coder.bundleVersion)\n", to: events)
                return false
            }
            return true
        }

        func didDecodeRestorableState(_ application: Application, coder: RestorableStateCoder) async {
            let urls = ((try? coder.decode([String].self, forKey: "handled")) ?? nil) ?? []
            handled.withLock { $0 = urls }
            RecorderApp.append("restored \(urls.joined(separator: ","))\n", to: events)
        }

        func willTerminate(_ application: Application) async {
            if lingerMilliseconds > 0 { lingerOnTheBus() }
            RecorderApp.append("will-terminate \(getpid())\n", to: events)
            try? await Task.sleep(for: willTerminateDelay)
            RecorderApp.append("will-terminate-done \(getpid())\n", to: events)
        }
    }

    final class Saver: ApplicationDelegate {
        let size: Int
        let count = Atomic<Int>(0)

        init(size: Int) { self.size = size }

        func shouldSaveApplicationState(_ application: Application) async -> Bool { true }

        func willEncodeRestorableState(_ application: Application, coder: inout RestorableStateCoder) async {
            let number = count.load(ordering: .relaxed)
            try? coder.encode(number, forKey: "number")
            coder.encode(bytes: [UInt8](repeating: UInt8(truncatingIfNeeded: number), count: size), forKey: "payload")
        }
    }
}
