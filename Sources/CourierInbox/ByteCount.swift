import Foundation

/// A number of bytes as people read it, in binary units: "900 bytes", "5.0 KiB", "512 MiB",
/// "1.5 GiB". The one wording of sizes in Courier's messages (the Inbox's space errors) and on
/// screen (`courier drop`'s progress bar), so the two never disagree about the same file.
///
/// Below 10 units one decimal is shown; from 10 on, whole units, rounded down (a progress bar
/// never claims more than was copied). Units stop at TiB.
public struct ByteCount: Sendable, Hashable, CustomStringConvertible {
    public let bytes: Int64

    public init(_ bytes: Int64) { self.bytes = bytes }
    public init(_ bytes: UInt64) { self.bytes = Int64(clamping: bytes) }

    public var description: String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard bytes >= 1024 else { return "\(bytes) bytes" }
        var value = Double(bytes)
        var unit = -1
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return value < 10 ? String(format: "%.1f %@", value, units[unit]) : "\(Int(value)) \(units[unit])"
    }
}
