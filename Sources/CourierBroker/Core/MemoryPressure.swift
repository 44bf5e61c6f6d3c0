public import CourierNames

/// The kernel's pressure stall information for memory (`/proc/pressure/memory`, PSI): the share of
/// time in which some (or all) tasks were stalled waiting for memory, averaged over 10 s.
public struct MemoryPressure: Sendable, Hashable {
    /// `some avg10`, percent: at least one task was stalled on memory.
    public var some10: Double
    /// `full avg10`, percent: every non-idle task was stalled at once.
    public var full10: Double

    public init(some10: Double, full10: Double) {
        self.some10 = some10
        self.full10 = full10
    }

    /// Parses the kernel's format:
    /// `some avg10=0.12 avg60=0.05 avg300=0.00 total=1234` and a `full …` line.
    /// Throws a message naming what was missing.
    public init(parsing text: String) throws(CourierError) {
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let kind = fields.first, kind == "some" || kind == "full" else { continue }
            for field in fields.dropFirst() where field.hasPrefix("avg10=") {
                values[String(kind)] = Double(field.dropFirst("avg10=".count))
            }
        }
        guard let some = values["some"] else {
            throw CourierError(.failed, "no 'some avg10=' line in the memory pressure file; expected the kernel's PSI format (some avg10=… avg60=… avg300=… total=…)")
        }
        self.init(some10: some, full10: values["full"] ?? 0)
    }
}

/// Where memory pressure is read: the kernel's file, or in tests a file of the same format.
public protocol MemoryPressureSource: Sendable {
    func read() throws(CourierError) -> MemoryPressure
}

/// The memory-pressure policy: when `some avg10` reaches `threshold` percent, the least recently
/// used idle app is terminated (one per sweep while the pressure lasts).
public struct MemoryPressurePolicy: Sendable {
    /// Percent of time some task stalled on memory over the last 10 s (PSI `some avg10`).
    public var threshold: Double
    public var source: any MemoryPressureSource

    public init(threshold: Double = 10, source: any MemoryPressureSource = PressureStallFile()) {
        self.threshold = threshold
        self.source = source
    }
}
