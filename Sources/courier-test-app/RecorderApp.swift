import Courier
import CourierProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier-test-app app`: a Courier app (launched by the broker, `COURIER_BUNDLE_ID` and
/// `COURIER_CONTAINER` set) that records what happens to it, so a load run can check the broker's
/// promises from the outside:
///
/// - `$COURIER_CONTAINER/launches`: one line (its pid) per start, written first thing, before it
///   owns its bus name — a second, concurrent launch would show as a second line;
/// - `$COURIER_CONTAINER/deliveries`: one line per delivered URL (followed by ` share-activity=NAME`
///   for a share activity), in delivery order, written
///   (unbuffered, `O_APPEND`) before `open` returns, so every handled request is on disk by the
///   time its caller has the reply.
enum RecorderApp {
    static let launchesFile = "launches"
    static let deliveriesFile = "deliveries"

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let container = environment["COURIER_CONTAINER"], container.hasPrefix("/") else {
            throw LoadError("courier-test-app app: COURIER_CONTAINER is not set; the app must be launched by courierd")
        }
        let launches = try openAppending(container + "/" + launchesFile)
        append("\(getpid())\n", to: launches)
        close(launches)
        let deliveries = try openAppending(container + "/" + deliveriesFile)
        try await Application(delegate: Recorder(fd: deliveries)).run()
    }

    /// Appends each URL (one line) to the deliveries file and answers handled.
    struct Recorder: ApplicationDelegate {
        let fd: Int32

        func open(_ url: String, options: OpenURLOptions, application: Application) async -> Bool {
            // A share activity's name comes along with the URL (docs/share.md).
            if let activity = options.all[CourierKey.shareActivity.name]?.stringValue {
                append(url + " share-activity=" + activity + "\n", to: fd)
            } else {
                append(url + "\n", to: fd)
            }
            return true
        }
    }

    static func openAppending(_ path: String) throws -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LoadError("cannot open \(path) for appending: \(String(cString: strerror(errno)))") }
        return fd
    }

    /// One `write` per line: with `O_APPEND` a line is never interleaved or split.
    static func append(_ line: String, to fd: Int32) {
        var line = line
        line.withUTF8 { bytes in _ = write(fd, bytes.baseAddress, bytes.count) }
    }
}
