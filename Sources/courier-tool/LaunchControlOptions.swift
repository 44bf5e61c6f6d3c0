import ArgumentParser

/// What `launch` and `restart` take.
struct LaunchControlOptions: ParsableArguments {
    @Argument(help: "The bundle id of the app.", completion: .custom(RegisteredNames.bundleIdentifiers))
    var bundleID: String

    @Flag(name: [.customShort("F"), .customLong("fresh")], help: "Do not hand the app the state it preserved when it was last terminated.")
    var fresh = false

    @Option(name: .customLong("args"), parsing: .remaining, help: ArgumentHelp("Everything after --args goes to the app, after its CourierLaunchArguments.", valueName: "arg"))
    var arguments: [String] = []
}
