import CourierNames
import CourierProtocol
import DBus
#if canImport(Glibc)
import Glibc
#endif

/// The share sheet on a terminal: the activities numbered on standard error, the answer read from
/// standard input (both must be a terminal). Enter, `q` or end of input dismisses (`Dismissed`);
/// "Save to…" then asks for the folder, a nearby send for the device.
public struct TerminalShareChooser: ShareChooser {
    public init() {}

    /// Whether a person is at this process's terminal (standard input and error are one).
    public static var isAvailable: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

    public func choose(from activities: [ShareActivity], items: [String]) async throws(CourierError) -> ShareChoice {
        var text = items.count == 1 ? "Share \(CleanText.escaped(items[0])):\n" : "Share \(items.count) items (\(CleanText.escaped(items.prefix(3).joined(separator: ", ")))\(items.count > 3 ? ", …" : "")):\n"
        for (index, activity) in activities.enumerated() {
            text += "  \(index + 1)) \(CleanText.escaped(activity.title))\n"
        }
        Self.say(text)
        var chosen: ShareActivity?
        while chosen == nil {
            let answer = try await Self.ask("Choose 1-\(activities.count) (Enter to cancel): ")
            if let number = Int(answer), activities.indices.contains(number - 1) {
                chosen = activities[number - 1]
            } else {
                Self.say("'\(CleanText.escaped(answer.prefix(40)))' is not one of 1-\(activities.count).\n")
            }
        }
        guard let activity = chosen else { throw Self.dismissed }
        switch ShareActivityKind(rawValue: activity.kind) {
        case .saveTo?:
            return ShareChoice(activity: activity, folder: try await Self.ask("Folder to save into (Enter to cancel): "))
        case .nearby?:
            let device = try await Self.ask("Device (alias, fingerprint or IP; Enter to cancel): ")
            return ShareChoice(activity: activity, device: device)
        default:
            return ShareChoice(activity: activity)
        }
    }

    static let dismissed = CourierError(.dismissed, "the share was cancelled at the terminal; nothing was shared")

    private static func say(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(STDERR_FILENO, &bytes, bytes.count)
    }

    /// One line from standard input, read on a thread of its own; an empty line, `q` or end of
    /// input is the person dismissing the sheet.
    private static func ask(_ prompt: String) async throws(CourierError) -> String {
        say(prompt)
        let line: String? = await withCheckedContinuation { continuation in
            DetachedThread.start("share prompt") { continuation.resume(returning: readLine(strippingNewline: true)) }
        }
        let answer = String((line ?? "").drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard !answer.isEmpty, answer != "q" else { throw dismissed }
        return answer
    }
}
