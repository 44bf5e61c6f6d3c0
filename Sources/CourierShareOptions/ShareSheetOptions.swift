public import ArgumentParser
import Courier

/// The share sheet's options on a command line, for every command that shares (`courier share`,
/// the todolist example's `share`): which activity runs without asking, the folder for Save to…,
/// and what not to offer. The kinds and the Save to… id come from `ShareActivity`.
public struct ShareSheetOptions: ParsableArguments {
    @Option(name: .long, help: "Run this activity without asking (an id `courier share --list` shows).")
    public var activity: String?

    @Option(
        name: .long,
        help: "The folder for Save to… (with --activity \(ShareActivity.saveTo); without it, the desktop portal's folder dialog asks, where a portal runs).")
    public var folder: String?

    @Option(
        name: .customLong("exclude"),
        help: "An activity kind (\(ShareActivity.kinds.joined(separator: ", "))) or id not to offer (repeatable).")
    public var excluded: [String] = []

    public init() {}
}
