import ArgumentParser
import CourierNames

/// `courier`: open URLs, drop files and inspect the registry from the shell.
@main
struct CourierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier",
        abstract: "Open URLs and files in the app that owns them, and inspect the Courier registry.",
        version: CourierVersion.current,
        subcommands: [
            // Each subcommand lives in its own file: <Name>Command.swift.
            ParseCommand.self,
            DumpCommand.self,
            HandlersCommand.self,
            DefaultCommand.self,
            OpenCommand.self,
            ShareCommand.self,
            CanOpenCommand.self,
            StatusCommand.self,
            PsCommand.self,
            QuitCommand.self,
            LaunchCommand.self,
            RestartCommand.self,
            DisableCommand.self,
            EnableCommand.self,
            RegisterCommand.self,
            UnregisterCommand.self,
            DropCommand.self,
            LogCommand.self,
            DesktopCommand.self,
            NearbyCommand.self,
        ]
    )
}
