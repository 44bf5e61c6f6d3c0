import CourierProcess
import Foundation

/// The `dbus-echo` section that counts instructions: the client process (every thread, user space)
/// runs under `valgrind --tool=callgrind`, once with `calls` and once with `2 × calls` echo calls of
/// one row (`--only ROW`); the difference divided by `calls` is the cost of one call, start-up and
/// warm-up cancelled. Unlike times, instruction counts repeat on a loaded machine, so changes to
/// the binding are judged by them (docs/dbus-binding.md, Performance). The services and the
/// dbus-daemon run natively and are not counted.
///
/// Two valgrind 3.19 (Debian 12) limits are worked around, only for the profiled copy:
/// - it cannot read the DWARF 5 debug information Swift 6 emits and gives up on the binary, so it
///   runs a copy without debug information (`objcopy --strip-debug`; symbols stay);
/// - its `rt_sigsuspend` wrapper edits the caller's signal mask in place, and libdispatch passes a
///   mask in read-only memory, so valgrind crashes with SIGSEGV as soon as a Swift program starts
///   its thread pool. A preloaded `sigsuspend` that passes a copy of the mask avoids it.
enum DBusEchoCallgrind {
    struct Row {
        let only: String
        let label: String
    }

    static let rows = [
        Row(only: "seq-c", label: "(a) C client, sequential"),
        Row(only: "seq", label: "(b) Swift client (default caller), sequential"),
        Row(only: "pipe-c", label: "(a) C client, pipelined"),
        Row(only: "pipe", label: "(b) Swift client (default caller), pipelined"),
    ]

    static let shimSource = """
        #define _GNU_SOURCE
        #include <signal.h>
        #include <unistd.h>
        #include <sys/syscall.h>
        /* valgrind 3.19 edits the mask passed to rt_sigsuspend in place: never hand it read-only memory. */
        int sigsuspend(const sigset_t *mask) {
            sigset_t copy = *mask;
            return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)8);
        }
        """

    /// Prints instructions per call for each row and the Swift/C ratios; a missing tool skips the
    /// section with one line saying what to install.
    static func run(calls: Int, depth: Int) {
        print("dbus-echo callgrind: client instructions per call (valgrind --tool=callgrind, every thread of the client process, user space; runs of \(calls) and \(2 * calls) calls, difference / \(calls))")
        guard let valgrind = tool("valgrind"), let objcopy = tool("objcopy"), let cc = tool("cc") ?? tool("clang") ?? tool("gcc") else {
            print("  skipped: needs valgrind, objcopy (binutils) and a C compiler on PATH (apt-get install valgrind binutils gcc)")
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-callgrind-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
            let copy = folder.appendingPathComponent("courier-bench").path
            try runTool(objcopy, ["--strip-debug", me, copy], folder: folder)
            let source = folder.appendingPathComponent("sigsuspend.c")
            try shimSource.write(to: source, atomically: true, encoding: .utf8)
            let shim = folder.appendingPathComponent("sigsuspend.so").path
            try runTool(cc, ["-O2", "-shared", "-fPIC", "-o", shim, source.path], folder: folder)

            var perCall: [String: Double] = [:]
            for row in rows {
                var counts: [Int] = []
                for n in [calls, 2 * calls] {
                    counts.append(try instructions(valgrind: valgrind, copy: copy, shim: shim, row: row.only, calls: n, depth: depth, folder: folder))
                }
                let each = Double(counts[1] - counts[0]) / Double(calls)
                perCall[row.only] = each
                print("  \(row.label.padding(toLength: 48, withPad: " ", startingAt: 0)) \(String(format: "%6.1f", each / 1000)) k instructions per call")
            }
            if let cs = perCall["seq-c"], let ss = perCall["seq"], let cp = perCall["pipe-c"], let sp = perCall["pipe"] {
                print("  callgrind instructions per call, Swift / C: sequential \(String(format: "%.2f", ss / cs))×, pipelined \(String(format: "%.2f", sp / cp))×")
            }
        } catch {
            print("  failed: \(error)")
        }
    }

    /// Total instructions of one run of `courier-bench dbus-echo --only ROW --calls N` under callgrind.
    static func instructions(valgrind: String, copy: String, shim: String, row: String, calls: Int, depth: Int, folder: URL) throws -> Int {
        let log = folder.appendingPathComponent("\(row)-\(calls).log").path
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = shim
        let child = try Spawner.start(
            path: valgrind,
            arguments: [valgrind, "--tool=callgrind", "--callgrind-out-file=\(folder.path)/\(row)-\(calls).out",
                        copy, "dbus-echo", "--only", row, "--calls", "\(calls)", "--depth", "\(depth)"],
            environment: environment, standardOutput: .file(log), standardError: .standardOutput)
        let status = child.wait()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // "==PID== Collected : 123456789"
        guard status.succeeded, let line = text.split(separator: "\n").last(where: { $0.contains("Collected :") }),
              let count = line.split(separator: " ").last.flatMap({ Int($0) }) else {
            throw BenchmarkFailure("callgrind run of --only \(row) --calls \(calls) \(status): \(text.split(separator: "\n").suffix(5).joined(separator: " | "))")
        }
        return count
    }

    static func runTool(_ path: String, _ arguments: [String], folder: URL) throws {
        let log = folder.appendingPathComponent("tool.log").path
        let status = try Spawner.start(path: path, arguments: [path] + arguments, standardOutput: .file(log), standardError: .standardOutput).wait()
        guard status.succeeded else {
            throw BenchmarkFailure("\(path) \(arguments.joined(separator: " ")) \(status): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
    }

    /// The executable `name` on PATH, or nil.
    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
