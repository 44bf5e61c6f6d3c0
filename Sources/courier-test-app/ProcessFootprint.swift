import Foundation

/// A process's footprint from /proc: resident memory (`VmRSS` of /proc/PID/status), open
/// descriptors (entries of /proc/PID/fd) and threads (`Threads`).
struct ProcessFootprint: Codable, Sendable, CustomStringConvertible {
    var rssKiB: Int
    var fds: Int
    var threads: Int

    init(pid: Int32) throws {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            throw LoadError("cannot read /proc/\(pid)/status: the process is gone")
        }
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return -1 }
            return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
        }
        rssKiB = field("VmRSS")
        threads = field("Threads")
        fds = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }

    var description: String { "RSS \(String(format: "%.1f", Double(rssKiB) / 1024)) MiB, \(fds) fds, \(threads) threads" }
}
