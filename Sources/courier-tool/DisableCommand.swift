import ArgumentParser
import CourierNames

/// `courier disable BUNDLE_ID` / `courier enable BUNDLE_ID`: take an app out of routing and back
/// (`launchctl disable`, `systemctl --user disable`'s spirit): its registration stays; its schemes
/// and types go to the next handler as if it were not registered; `open -b`, `launch` and
/// `restart` to it are refused naming that it is disabled. Saved in defaults.json (so it outlasts
/// the broker) and applied at once by a running broker.
struct DisableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable",
        abstract: "Take an app out of routing, keeping its registration: its schemes and types go to the next handler.",
        discussion: "Saved in $XDG_CONFIG_HOME/courier/defaults.json and applied at once by a running broker; a running instance is not stopped (courier quit). `courier handlers --explain` shows it as disabled. " + CourierExitCode.help([(.handled, "done (also when it already was)"), (.unknownApp, "no such app"), (.cannotWrite, "cannot be saved")])
    )

    @OptionGroup var app: RoutingSwitch

    func run() async throws {
        try await app.set(disabled: true)
    }
}
