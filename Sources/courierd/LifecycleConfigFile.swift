import CourierBroker
import Foundation

/// `$XDG_CONFIG_HOME/courier/courierd.conf`: the termination policies a user sets once
/// (docs/lifecycle.md). One `key = value` per line, `#` comments; command-line options win.
///
/// ```
/// idle-timeout = 300        # seconds; 0 or absent: off
/// memory-pressure = 10      # PSI "some avg10" percent; absent: off
/// termination-notice = 5    # seconds an app has to answer WillTerminate
/// ```
struct LifecycleConfigFile {
    var idleTimeout: Double?
    var memoryPressure: Double?
    var terminationNotice: Double?

    static let keys = ["idle-timeout", "memory-pressure", "termination-notice"]

    /// Reads `path`; a missing file is an empty configuration. Throws a message naming the file,
    /// the line and what to write instead.
    init(path: String) throws(ConfigError) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let place = "\(path):\(index + 1)"
            guard parts.count == 2 else { throw ConfigError("\(place): '\(line)' is not 'key = value'; keys: \(Self.keys.joined(separator: ", "))") }
            guard let value = Double(parts[1]), value >= 0, value.isFinite else {
                throw ConfigError("\(place): \(parts[0]) must be a number ≥ 0 (seconds, or percent for memory-pressure), not '\(parts[1])'")
            }
            switch parts[0] {
            case "idle-timeout": idleTimeout = value
            case "memory-pressure": memoryPressure = value
            case "termination-notice": terminationNotice = value
            default: throw ConfigError("\(place): unknown key '\(parts[0])'; keys: \(Self.keys.joined(separator: ", "))")
            }
        }
    }

    struct ConfigError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
