/// How a program Courier ran ended.
public enum ExitStatus: Sendable, Equatable, CustomStringConvertible {
    /// It called `exit(code)`.
    case exited(Int32)
    /// A signal ended it.
    case signaled(Int32)

    /// Whether it exited with status 0.
    public var succeeded: Bool { self == .exited(0) }

    /// The status a shell would report: the exit code, or 128 + the signal number.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let code): return code
        case .signaled(let signal): return 128 + signal
        }
    }

    public var description: String {
        switch self {
        case .exited(let code): return "exit status \(code)"
        case .signaled(let signal): return "killed by signal \(signal)"
        }
    }
}
