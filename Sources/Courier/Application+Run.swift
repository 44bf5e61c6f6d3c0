import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension Application {
    /// What an app's `main` calls: creates the application, starts it and serves until the bus
    /// connection ends; never returns. Any error — `COURIER_BUNDLE_ID` not set when the app is run
    /// by hand, its name taken by a running instance, no session bus — ends the process with one
    /// line on standard error (`PROGRAM: what happened and what to do`) and exit status 1, never
    /// a trap with a backtrace, which is what an error thrown out of `main` gives.
    ///
    /// ```swift
    /// @main enum Main {
    ///     static func main() async { await Application.run(delegate: MyDelegate()) }
    /// }
    /// ```
    public static func run(bundleID: String? = nil, delegate: any ApplicationDelegate) async -> Never {
        do {
            try await Application(bundleID: bundleID, delegate: delegate).run()
            exit(0)
        } catch {
            let program = (CommandLine.arguments.first ?? "app").split(separator: "/").last.map(String.init) ?? "app"
            writeStandardError("\(program): \(error.message)\n")
            exit(1)
        }
    }
}
