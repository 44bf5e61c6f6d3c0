import ArgumentParser

/// `courier enable BUNDLE_ID`: takes an app `courier disable` took out of routing back in.
struct EnableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Take a disabled app back into routing.",
        discussion: "Exit status: 0 done (also when it was not disabled); 3 no such app; 73 cannot be saved."
    )

    @OptionGroup var app: RoutingSwitch

    func run() async throws {
        try await app.set(disabled: false)
    }
}
