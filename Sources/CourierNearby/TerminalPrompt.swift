import Foundation

/// Consent on the terminal `courier nearby receive` runs on: the session is described on standard
/// error and the user answers `y` on standard input within `timeout` (anything else, or silence,
/// declines). Used only when standard input is a terminal.
public struct TerminalPrompt: ConsentPrompt {
    public var timeout: Duration

    public init(timeout: Duration = .seconds(45)) {
        self.timeout = timeout
    }

    public static var isAvailable: Bool { isatty(STDIN_FILENO) == 1 }

    public func ask(_ request: ConsentRequest) async -> Bool {
        let milliseconds = Int32(timeout.components.seconds * 1000)
        return await withCheckedContinuation { continuation in
            // A thread of its own: reading the terminal blocks.
            Thread.detachNewThread {
                FileHandle.standardError.write(Data("\(request.summary)\nAccept? [y/N] ".utf8))
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, milliseconds) == 1, let line = readLine() else {
                    FileHandle.standardError.write(Data("\nno answer: declined\n".utf8))
                    continuation.resume(returning: false)
                    return
                }
                continuation.resume(returning: ["y", "yes"].contains(line.trimmingCharacters(in: .whitespaces).lowercased()))
            }
        }
    }
}
