import BusTestSupport
import CourierProcess
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
        let bin = Products.folder
        let driver = bin.appendingPathComponent("courier-test-app").path
        guard FileManager.default.isExecutableFile(atPath: driver) else {
            print("load: skipped (\(driver) not built; run `swift build -c release --product courier-test-app` and `--product courierd`)")
            return
        }
        // The driver's output goes straight to ours (it prints as it goes and ends with its verdict).
        let child: ChildProcess
        do {
            child = try Spawner.start(path: driver, arguments: [driver, "load"] + arguments)
        } catch {
            throw LoadBenchmarkError("cannot start \(driver): \(error)")
        }
        let termination = child.wait()
        if !termination.succeeded { throw LoadBenchmarkError("the load run failed (\(termination)); see its report above") }
    }

    struct LoadBenchmarkError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
