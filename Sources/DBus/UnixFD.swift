import Synchronization
internal import CDBus
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An owned unix file descriptor travelling in a D-Bus message (type `h`).
///
/// Ownership is in the type: the descriptor is closed exactly once — by `close()`, or when the
/// last reference goes away — unless `take()` transferred it to the caller first. Received fds
/// are duplicates libdbus made for us (with `FD_CLOEXEC`), so closing them never disturbs the
/// message; sending duplicates again, so the sender keeps its `UnixFD` after the call.
public final class UnixFD: Sendable, Hashable, CustomStringConvertible {
    private let fd: Mutex<Int32>

    /// Takes ownership of `fd`: this object will close it.
    public init(taking fd: Int32) {
        self.fd = Mutex(fd)
    }

    /// A new owned duplicate (with `FD_CLOEXEC`) of `fd`; the caller keeps `fd`.
    public convenience init(duplicating fd: Int32) throws(DBusError) {
        let d = cdbus_dup_cloexec(fd)
        if d < 0 {
            throw DBusError.failed("cannot duplicate file descriptor \(fd): errno \(errno)")
        }
        self.init(taking: d)
    }

    /// The descriptor, still owned by this object (nil once taken or closed). Do not close it;
    /// keep `self` alive while using it.
    public var rawValue: Int32? {
        let v = fd.withLock { $0 }
        return v >= 0 ? v : nil
    }

    /// Transfers ownership to the caller, who must close the result. Nil if already taken or closed.
    public func take() -> Int32? {
        let v = fd.withLock { fd in
            let v = fd
            fd = -1
            return v
        }
        return v >= 0 ? v : nil
    }

    /// Closes the descriptor now (idempotent).
    public func close() {
        if let v = take() { _ = Glibc.close(v) }
    }

    /// A new owned duplicate of this descriptor.
    public func duplicate() throws(DBusError) -> UnixFD {
        guard let v = rawValue else { throw DBusError.failed("file descriptor was already taken or closed") }
        return try UnixFD(duplicating: v)
    }

    deinit { close() }

    public static func == (a: UnixFD, b: UnixFD) -> Bool { a === b }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
    public var description: String { rawValue.map { "UnixFD(\($0))" } ?? "UnixFD(closed)" }
}
