/// A libdbus timeout and when it is due (monotonic ns).
struct TimeoutEntry: Sendable {
    let timeout: LibdbusHandle
    var deadline: UInt64
}
