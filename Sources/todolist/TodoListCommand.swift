import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// The guide's todolist example app: `todolist` run by the broker receives `todolist://` URLs;
/// run from a shell it lists or decodes.
struct TodoListCommand: AsyncParsableCommand {
    /// The bundle id of the example (Schemes/com.acme.todolist.plist).
    static let bundleID = "com.acme.todolist"
    /// The bundle id it runs as: `COURIER_BUNDLE_ID` (a broker that launches it sets it), else ``bundleID``.
    static var currentBundleID: String { getenv("COURIER_BUNDLE_ID").map { String(cString: $0) } ?? bundleID }
    /// The version written into its preserved state; a state from another version is not restored.
    static let version = "1.0"

    static let configuration = CommandConfiguration(
        commandName: "todolist",
        abstract: "The todolist example app of Courier (the App Programming Guide's worked example).",
        subcommands: [
            // Each subcommand lives in its own file: <Name>Command.swift.
            RunCommand.self,
            ListCommand.self,
            DecodeCommand.self,
            ShareCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )
}
