/// A message received from the bus, fully decoded into Swift values on the connection's I/O thread
/// (so no libdbus pointer ever crosses threads).
public struct DBusMessage: Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case methodCall, methodReturn, error, signal
    }

    public var kind: Kind
    /// The sender's serial for this message.
    public var serial: UInt32
    /// For replies and errors: the serial of the call answered.
    public var replySerial: UInt32
    /// The sender's unique name (set by the bus; nil on a peer-to-peer connection).
    public var sender: BusName?
    public var destination: BusName?
    public var path: ObjectPath?
    public var interface: InterfaceName?
    public var member: MemberName?
    /// For error replies: the error name.
    public var errorName: String?
    /// The body's signature.
    public var signature: Signature
    /// The body, decoded. File descriptors appear as owned `UnixFD` values.
    public var body: [DBusValue]
    /// True when the caller asked for no reply.
    public var noReplyExpected: Bool

    /// Every file descriptor in the body, in order of appearance.
    public var fds: [UnixFD] { body.flatMap(\.allFDs) }

    public var description: String {
        "\(kind) serial=\(serial) sender=\(sender?.rawValue ?? "-") path=\(path?.rawValue ?? "-") "
            + "\(interface?.rawValue ?? "-").\(member?.rawValue ?? errorName ?? "-") (\(signature)) \(body)"
    }
}

extension DBusValue {
    /// Every `UnixFD` inside this value, depth first.
    public var allFDs: [UnixFD] {
        switch self {
        case .unixFD(let fd): [fd]
        case .variant(let v): v.allFDs
        case .array(_, let vs), .structure(let vs): vs.flatMap(\.allFDs)
        case .dictionary(_, _, let es): es.flatMap { $0.key.allFDs + $0.value.allFDs }
        default: []
        }
    }
}
