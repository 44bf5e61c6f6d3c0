import ArgumentParser
import CourierNames

/// `courier enable BUNDLE_ID`: takes an app `courier disable` took out of routing back in.
struct EnableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Take a disabled app back into routing.",
        discussion: CourierExitCode.help([(.handled, "done (also when it was not disabled)"), (.unknownApp, "no such app"), (.cannotWrite, "cannot be saved")])
    )

    @OptionGroup var app: RoutingSwitch

    func run() async throws {
        try await app.set(disabled: false)
    }
}
