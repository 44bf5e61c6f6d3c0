public import Foundation

/// A real X server without a screen (`Xvfb`, Debian's `xvfb`) for tests of what needs a display:
/// the clipboard tool, a notification daemon. It picks a free display itself (`-displayfd`), so
/// tests running at once never collide.
public final class VirtualDisplay: Sendable {
    public static let xvfb = "/usr/bin/Xvfb"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: xvfb) }

    public let process: BackgroundProcess
    /// The `DISPLAY` value, `:N`.
    public let display: String

    /// Starts Xvfb with its output in `folder`; returns once it serves its display.
    public init(folder: URL, environment: [String: String]) async throws {
        process = try BackgroundProcess(Self.xvfb, ["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "640x480x24"],
                                        environment: environment, outputIn: folder, name: "xvfb-\(UUID().uuidString.prefix(8))")
        for _ in 0..<1000 where process.output.isEmpty && process.exitStatus == nil { try await Task.sleep(for: .milliseconds(20)) }
        let number = process.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Int(number) != nil else {
            process.signal(SIGTERM)
            throw StartFailure(errors: process.errors)
        }
        display = ":" + number
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public let errors: String
        public var description: String { "Xvfb did not start: \(errors)" }
    }

    public func stop() {
        process.signal(SIGTERM)
    }
}
