/// Decides whether a process may receive an app's URLs and files, and which app a caller is:
/// the identity of receivers (docs/security.md).
///
/// A process is the app only if the broker can tie it to the app's manifest:
/// 1. it is the child the broker spawned for that app and has not exited (`Launcher.isRunningChild`,
///    safe against pid reuse), or
/// 2. it runs in a sandbox (`SandboxIdentity`): then only the sandbox's own app, and only when the
///    manifest launches that sandbox (`flatpak run BUNDLE_ID`, the snap), or
/// 3. its executable, `/proc/PID/exe`, is by device and inode the file the manifest's launch
///    command resolves to (`Launcher.executablePath`) — not a file of the same name, not a copy —
///    and, when that command runs a script (`Interpreter`: a known interpreter's first operand, or
///    an executable that is a `#!` script), the script its command line names is that file too.
///
/// Anything else is an impostor. An app whose manifest has no `CourierLaunchArguments` can only
/// be verified by (1), which it never is: Courier cannot tell its executable, so it must be
/// launched by Courier to be trusted. The pid is the one the bus read from the connection's
/// socket (`GetConnectionCredentials`), never one the caller states.
public struct ReceiverVerifier: Sendable {
    let launcher: any Launcher
    let resolver: any HandlerResolver

    public init(launcher: any Launcher, resolver: any HandlerResolver) {
        self.launcher = launcher
        self.resolver = resolver
    }

    /// The verdict on the process `pid` as a receiver for `bundleID`, now.
    public func verdict(bundleID: String, pid: Int32?) -> ReceiverVerdict {
        guard let pid, pid > 0 else {
            return .impostor(nil, reason: "the bus cannot tell which process it is, so Courier cannot check it")
        }
        if launcher.isRunningChild(pid, of: bundleID) { return .launchedChild(pid: pid) }
        let process = ProcessIdentity.of(pid: pid)
        guard let descriptor = resolver.descriptor(bundleID: bundleID) else {
            return .impostor(process, reason: "no manifest is registered for \(bundleID)")
        }
        guard let arguments = descriptor.launchArguments, !arguments.isEmpty else {
            return .impostor(process, reason: "the manifest of \(bundleID) has no CourierLaunchArguments, so only a process Courier launched can be \(bundleID)")
        }
        if let sandbox = SandboxIdentity.of(pid: pid) {
            guard sandbox.mayBe(bundleID, launchedBy: arguments) else {
                return .impostor(process, reason: "it runs in \(sandbox), and the manifest of \(bundleID) does not launch that sandbox")
            }
            return .sandboxed(process, sandbox)
        }
        let expected: ExpectedCode
        switch expectedCode(bundleID: bundleID, arguments: arguments) {
        case .success(let code): expected = code
        case .failure(let refusal): return .impostor(process, reason: refusal.reason)
        }
        guard let running = process.executable else {
            return .impostor(process, reason: "its executable cannot be read (/proc/\(pid)/exe): it exited, or is not this user's")
        }
        guard running == expected.executable else {
            return .impostor(process, reason: "it runs \(process.executablePath), not \(expected.executablePath), the executable the manifest of \(bundleID) launches" + Self.label(of: pid))
        }
        guard let script = expected.script else { return .sameExecutable(process) }
        var scripted = process
        scripted.script = ProcessIdentity.script(of: pid)
        guard let running = scripted.script, running.file == script.file else {
            let runs = scripted.script.map { "the script \($0.path)" } ?? "no script file"
            return .impostor(scripted, reason: "it runs \(process.executablePath) with \(runs), not \(script.path), the script the manifest of \(bundleID) runs with it (an interpreter alone is not an app)" + Self.label(of: pid))
        }
        return .sameExecutable(scripted)
    }

    /// What a launch command runs, by file: the executable a process of the app shows as
    /// `/proc/PID/exe`, and the script it runs when the command runs one.
    struct ExpectedCode {
        var executable: FileIdentity
        var executablePath: String
        var script: ProcessIdentity.RunningScript?
    }

    struct Refusal: Error { var reason: String }

    /// The code the manifest of `bundleID` runs: its executable and, for an interpreter or a `#!`
    /// script, the script; a refusal saying why when a file cannot be told.
    func expectedCode(bundleID: String, arguments: [String]) -> Result<ExpectedCode, Refusal> {
        let path: String
        do {
            path = try launcher.executablePath(for: LaunchSpec(bundleID: bundleID, arguments: arguments))
        } catch {
            return .failure(Refusal(reason: "the launch command of \(bundleID) resolves to no executable (\(error.message))"))
        }
        guard let file = FileIdentity(path: path) else {
            return .failure(Refusal(reason: "\(path), the executable the manifest of \(bundleID) launches, cannot be read"))
        }
        if let line = Interpreter.shebang(ofFile: path) {
            // The kernel runs the interpreter with the script as its first operand.
            var interpreter = line.interpreter
            if Interpreter.baseName(interpreter) == "env" {
                // `#!/usr/bin/env python3`: env looks the name up on the app's PATH.
                let name = line.argument?.split(separator: " ").first { !$0.hasPrefix("-") }.map(String.init) ?? ""
                do {
                    interpreter = try launcher.executablePath(for: LaunchSpec(bundleID: bundleID, arguments: [name]))
                } catch {
                    return .failure(Refusal(reason: "\(path), the script the manifest of \(bundleID) launches, names an interpreter that cannot be found (\(error.message))"))
                }
            }
            guard let interpreterFile = FileIdentity(path: interpreter) else {
                return .failure(Refusal(reason: "\(interpreter), the interpreter of \(path) (the script the manifest of \(bundleID) launches), cannot be read"))
            }
            return .success(ExpectedCode(executable: interpreterFile, executablePath: interpreter, script: .init(file: file, path: path)))
        }
        guard Interpreter.isInterpreter(path: path) else { return .success(ExpectedCode(executable: file, executablePath: path)) }
        guard let operand = Interpreter.scriptOperand(in: arguments) else {
            return .failure(Refusal(reason: "the manifest of \(bundleID) runs the interpreter \(path) with no script file, and an interpreter alone is not an app: only the process Courier launched can be \(bundleID)"))
        }
        // A relative script is where the app runs it: in the broker's working folder, which its
        // children inherit.
        let scriptPath = operand.hasPrefix("/") ? operand : (ProcessIdentity.readLink("/proc/self/cwd") ?? ".") + "/" + operand
        guard let script = FileIdentity(path: scriptPath) else {
            return .failure(Refusal(reason: "\(scriptPath), the script the manifest of \(bundleID) runs with \(path), cannot be read"))
        }
        return .success(ExpectedCode(executable: file, executablePath: path, script: .init(file: script, path: scriptPath)))
    }

    /// ", started as APP by the desktop" when the process's systemd unit names an app: a label any
    /// process of the user can choose, so it is only shown.
    static func label(of pid: Int32) -> String {
        guard let cgroup = ProcessIdentity.readSmallFile("/proc/\(pid)/cgroup", limit: 16 << 10),
              let app = SandboxIdentity.systemdApplication(cgroup: cgroup) else { return "" }
        return " (its systemd unit names it \(app), a label it may have chosen)"
    }

    /// Whether a process admitted earlier is still the one it was: the launched child has not
    /// exited, or the process still runs the same file. Checked before every delivery.
    ///
    /// `handle`, the process's `/proc/PID` opened when it was admitted (`ProcessHandle`), is the
    /// check for `.sameExecutable`: it sees only that very process, so a pid reused by another
    /// process running the same executable is refused, and it costs one `fstatat`. Without one
    /// (no descriptor was left at admission) the pid's `/proc/PID/exe` is read by path.
    public func stillHolds(_ verdict: ReceiverVerdict, bundleID: String, handle: ProcessHandle? = nil) -> Bool {
        switch verdict {
        case .launchedChild(let pid):
            return launcher.isRunningChild(pid, of: bundleID)
        case .sameExecutable(let process), .sandboxed(let process, _):
            guard let expected = process.executable else { return false }
            if let handle, handle.pid == process.pid { return handle.executable == expected }
            // By path, a reused pid could run the same interpreter: its script must match too.
            if let script = process.script, ProcessIdentity.script(of: process.pid)?.file != script.file { return false }
            return FileIdentity(path: "/proc/\(process.pid)/exe") == expected
        case .impostor:
            return false
        }
    }
}
