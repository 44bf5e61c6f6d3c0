import Foundation

/// The one-line progress bar `courier drop` draws while the broker copies large files (and
/// `courier nearby send` while it uploads), redrawn in
/// place with a carriage return: `[##########----------]  48%  512 MiB of 1.0 GiB`.
/// Drawn only when stdout is a terminal (never into a pipe or a file).
public struct DropProgressBar: Sendable {
    /// Below this, a drop is quick enough that a bar would only flicker.
    public static let minimumBytes: UInt64 = 16 << 20
    public var width = 30
    public private(set) var drawn = false

    public init() {}

    /// The text of the bar for `copied` of `total` bytes.
    public func line(copied: UInt64, total: UInt64) -> String {
        let fraction = total == 0 ? 1 : min(1, Double(copied) / Double(total))
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = String(format: "%3d%%", Int((fraction * 100).rounded(.down)))
        return "[\(bar)] \(percent)  \(ByteCount(copied)) of \(ByteCount(total))"
    }

    /// Redraws the bar on stdout.
    public mutating func draw(copied: UInt64, total: UInt64) {
        guard total >= Self.minimumBytes else { return }
        FileHandle.standardOutput.write(Data(("\r" + line(copied: copied, total: total) + "\u{1B}[K").utf8))
        drawn = true
    }

    /// Ends the bar's line, if one was drawn.
    public mutating func finish() {
        if drawn { FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}
