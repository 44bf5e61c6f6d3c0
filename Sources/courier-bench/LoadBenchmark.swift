import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier-bench load [options]`: the load run (docs/broker.md, "Load and leaks") in this release
/// build — `courier-test-app load` from the same folder, against the `courierd` beside it: 10,000
/// OpenURLs from 16 client processes over 50 apps (25 cold), opens/s, and courierd's RSS / fds /
/// threads after the warm-up vs after the run. Options are `courier-test-app load`'s. Needs
/// `swift build -c release --product courier-test-app` and `--product courierd`.
enum LoadBenchmark {
    static func run(arguments: [String]) throws {
        let bin = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]).deletingLastPathComponent()
        let driver = bin.appendingPathComponent("courier-test-app").path
        guard FileManager.default.isExecutableFile(atPath: driver) else {
            print("load: skipped (\(driver) not built; run `swift build -c release --product courier-test-app` and `--product courierd`)")
            return
        }
        // The driver's output goes straight to ours (it prints as it goes and ends with its verdict).
        let argv = [driver, "load"] + arguments
        var cargs = argv.map { strdup($0) } + [nil]
        defer { cargs.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, driver, nil, nil, &cargs, environ)
        guard rc == 0 else { throw LoadBenchmarkError("cannot start \(driver): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        if status != 0 { throw LoadBenchmarkError("the load run failed (wait status \(status)); see its report above") }
    }

    struct LoadBenchmarkError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
