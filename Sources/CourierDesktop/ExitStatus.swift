public import CourierProcess

/// How a program Courier ran ended: `.exited(code)` or `.signaled(signal)`, with `succeeded`,
/// `shellStatus` and a description; the one decoding of a wait status, shared with every other
/// process CourierProcess starts.
public typealias ExitStatus = ChildProcess.Termination
