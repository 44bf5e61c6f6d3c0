internal import CDBus
import Synchronization

/// The headers of the method calls, signals and method returns a connection sent last, as libdbus
/// messages without a body that new messages are copied from (`dbus_message_copy`).
///
/// Why: `dbus_message_new_method_call` validates its four names again (they are validated Swift
/// types already) and writes each header field on its own — every write re-marshals the header and
/// drops libdbus's field cache, which the first append of an argument then rebuilds by parsing the
/// header again. For the echo benchmark's call that is ~9.5 k instructions to create and ~4.5 k of
/// the append; copying a template whose field cache is filled costs a small fraction of that
/// (docs/dbus-binding.md, Performance). A connection mostly repeats a few targets, so a handful of
/// templates covers it; a miss builds the message as before and keeps it as a template. Replies
/// (`dbus_message_new_method_return`: destination, no-reply flag, reply serial) are the same story
/// per caller: the template is keyed by the caller's unique name and each copy gets its own reply
/// serial, a fixed-size field libdbus overwrites in place. A reply template may hold a small body
/// too, kept from a reply already sent, for the next reply to the same caller with the same values
/// (`DBusConnection.methodReturn`).
struct MessageTemplates: ~Copyable {
    /// At most this many templates; the oldest is replaced first.
    static let capacity = 32

    private var entries: [MessageTemplate] = []
    private var next = 0

    /// The template for `key`, if one is kept.
    func template(for key: MessageTemplate.Key) -> MessageTemplate? {
        for t in entries where t.key == key { return t }
        return nil
    }

    mutating func keep(_ template: MessageTemplate) {
        if entries.count < Self.capacity {
            entries.append(template)
        } else {
            entries[next] = template
            next = (next + 1) % Self.capacity
        }
    }
}

/// One libdbus message to copy: a header, or a whole small reply (see `MessageTemplates`).
///
/// `@unchecked Sendable`: the message is built and its field cache filled in `init`, before the
/// template is shared; from then on it is only read, by `dbus_message_copy` (which takes a const
/// message and copies its header and body strings), from any thread, and never sent, modified or
/// locked. The last reference drops it.
final class MessageTemplate: @unchecked Sendable {
    struct Key: Equatable {
        let type: Int32
        let destination: BusName?
        let path: ObjectPath?
        let interface: InterfaceName?
        /// nil for a method return.
        let member: MemberName?
        /// The body of a kept reply (`MessageTemplate.init(_:adopting:)`); empty for a header.
        var body: [DBusValue] = []

        /// The key of the method return to a call from `sender`, holding `body`.
        static func methodReturn(to sender: BusName?, body: [DBusValue] = []) -> Key {
            Key(type: cdbus_message_type_method_return(), destination: sender, path: nil, interface: nil, member: nil, body: body)
        }
    }

    /// The largest body (`DBusValue.byteCount`) a kept reply holds: replies that repeat are
    /// answers and flags, and a template holds its bytes for as long as it is kept.
    static let maxKeptBodyBytes = 256

    let key: Key
    private let message: OpaquePointer

    /// Builds the header of a method call or signal for `key`, or (`replyTo`) of a method return to
    /// that call, whose sender is `key.destination`; nil when libdbus is out of memory.
    init?(_ key: Key, replyTo call: OpaquePointer? = nil) {
        let created: OpaquePointer?
        if let call {
            created = dbus_message_new_method_return(call)
        } else if key.type == cdbus_message_type_method_call(), let member = key.member {
            created = withOptionalCString(key.destination?.rawValue) { d in
                withOptionalCString(key.interface?.rawValue) { i in
                    (key.path ?? .root).rawValue.withCString { p in member.rawValue.withCString { dbus_message_new_method_call(d, p, i, $0) } }
                }
            }
        } else if let path = key.path, let interface = key.interface, let member = key.member {
            created = path.rawValue.withCString { p in
                interface.rawValue.withCString { i in member.rawValue.withCString { dbus_message_new_signal(p, i, $0) } }
            }
            if let m = created, let destination = key.destination,
               destination.rawValue.withCString({ dbus_message_set_destination(m, $0) }) == 0 {
                dbus_message_unref(m)
                return nil
            }
        } else {
            return nil
        }
        guard let m = created else { return nil }
        // Reading a field fills libdbus's header field cache (every write above dropped it); the
        // copies inherit it, so their first append finds the signature field without a parse.
        _ = dbus_message_get_signature(m)
        self.key = key
        self.message = m
    }

    /// Keeps `message` (taken over: never sent, and unreferenced with the template), a reply
    /// already built whose copies answer the same caller with the same body.
    init(_ key: Key, adopting message: OpaquePointer) {
        _ = dbus_message_get_signature(message)   // fills the field cache the copies inherit
        self.key = key
        self.message = message
    }

    deinit { dbus_message_unref(message) }

    /// A new message with this header and body (serial 0), owned by the caller; nil when out of memory.
    func copy() -> OpaquePointer? {
        dbus_message_copy(message)
    }
}
