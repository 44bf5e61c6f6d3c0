internal import CDBus

/// A complete libdbus message on its way to the loop, which sends it (or, handed over by a
/// borrower of the socket, routes it). The sender took a reference for the queue and never
/// touches the message again, and libdbus locks a message once it is sent: one thread at a
/// time uses it.
struct OutgoingMessage: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes a reference of its own.
    init(_ message: OpaquePointer) {
        dbus_message_ref(message)
        pointer = message
    }

    /// Takes over the caller's reference.
    init(adopting message: OpaquePointer) {
        pointer = message
    }

    func release() { dbus_message_unref(pointer) }
}
