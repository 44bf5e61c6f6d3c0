public import CourierNames
import Foundation

/// A PSI file: `/proc/pressure/memory` by default (Linux ≥ 4.20 with CONFIG_PSI).
public struct PressureStallFile: MemoryPressureSource {
    public var path: String

    public init(path: String = "/proc/pressure/memory") {
        self.path = path
    }

    public func read() throws(CourierError) -> MemoryPressure {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CourierError(.failed, "cannot read memory pressure from \(path) (\(error.localizedDescription)); the kernel needs CONFIG_PSI (boot with psi=1), or turn --memory-pressure off")
        }
        return try MemoryPressure(parsing: text)
    }
}
