import CourierNames
#if canImport(Glibc)
import Glibc
#endif

/// The full CLI, `courier-tool`: next to this executable (a build folder, or an install that puts
/// both in `bin/`), else in `../libexec/courier/` (what `scripts/install` does). It is started
/// with this executable's own path as `argv[0]`, so it finds `courierd` beside `courier` and
/// writes desktop entries that run `courier`, not itself.
enum FullCLI {
    static let name = "courier-tool"

    /// This executable's path (`/proc/self/exe`), or `argv[0]` when the link cannot be read.
    static let ownPath: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments.first ?? "courier" }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    static var path: String? {
        let folder = ownPath.lastIndex(of: "/").map { String(ownPath[..<$0]) } ?? "."
        for candidate in ["\(folder)/\(name)", "\(folder)/../libexec/courier/\(name)"] where access(candidate, X_OK) == 0 {
            return candidate
        }
        return nil
    }

    /// Replaces this process with the full CLI running `arguments`; never returns.
    static func exec(_ arguments: [String]) -> Never {
        guard let path else { missing() }
        withCArguments([ownPath] + arguments) { argv in _ = execv(path, argv) }
        let reason = String(cString: strerror(errno))
        writeError("courier: cannot run \(path): \(reason)")
        exit(CourierExitCode.otherError.rawValue)
    }

    /// Runs the full CLI with `arguments` as a child, with the same standard streams, and returns
    /// its exit status (a signal's number + 128, as shells report it).
    ///
    /// Deliberately not CourierProcess's `Spawner`, the package's one spawner: the full CLI here is
    /// this very command continued, so it keeps this process's standard input (a terminal it may
    /// prompt on) and signal settings, which `Spawner` resets by design; and this fully static
    /// front links nothing it does not need.
    static func run(_ arguments: [String]) -> Int32 {
        guard let path else { missing() }
        fflush(nil)
        var pid: pid_t = 0
        let spawned = withCArguments([ownPath] + arguments) { argv in posix_spawn(&pid, path, nil, nil, argv, environ) }
        guard spawned == 0 else {
            writeError("courier: cannot run \(path): \(String(cString: strerror(spawned)))")
            return 9
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private static func missing() -> Never {
        writeError("courier: \(name) was found neither next to \(ownPath) nor in ../libexec/courier/; reinstall Courier (scripts/install)")
        exit(CourierExitCode.otherError.rawValue)
    }

    private static func withCArguments<R>(_ arguments: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = arguments.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}

/// One line on standard error.
func writeError(_ line: String) {
    fflush(nil)
    var bytes = Array((line + "\n").utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
