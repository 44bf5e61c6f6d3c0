/// Where `Spawner.start` sends a child's standard output or standard error.
public enum SpawnOutput: Sendable, Equatable {
    /// The launcher's own descriptor (its terminal, log or pipe).
    case inherit
    /// `/dev/null`.
    case discard
    /// A file, created with mode 0644 if missing; truncated first unless `append`.
    case file(String, append: Bool = false)
    /// A pipe whose read end the caller gets as `ChildProcess.output` (when both outputs say
    /// `.pipe`, they share the one pipe).
    case pipe
    /// Standard error only: wherever standard output goes (`2>&1`).
    case standardOutput
    /// An open descriptor of the launcher (a connected socket, say), duplicated onto the child's
    /// 1 or 2; the launcher keeps it and closes it after `start` returns.
    case descriptor(Int32)
}
