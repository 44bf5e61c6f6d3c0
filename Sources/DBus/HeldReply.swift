/// A reply held until the loop is about to sleep (`IOLoop.resumeWhenIdle`).
struct HeldReply {
    let continuation: UnsafeContinuation<DBusMessage, any Error>
    let result: Result<DBusMessage, any Error>
}
