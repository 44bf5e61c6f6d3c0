import ArgumentParser

/// The guide's todolist example app: `todolist` run by the broker receives `todolist://` URLs;
/// run from a shell it lists or decodes.
@main
struct TodoListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todolist",
        abstract: "The todolist example app of Courier (the App Programming Guide's worked example).",
        subcommands: [
            // Each subcommand lives in its own file: <Name>Command.swift.
            DecodeCommand.self,
        ]
    )
}
