#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor this code owns: it is closed exactly once, when the value goes away.
///
/// Non-copyable so that ownership is in the type (the swift-subprocess habit): a descriptor cannot
/// be closed twice or leaked by a forgotten `close`, which is what keeps the broker's fd count
/// flat across thousands of drops. Descriptors the caller passes in (the sender's files) are
/// never wrapped in this type: they are borrowed as plain `Int32` and never closed here.
struct OwnedDescriptor: ~Copyable {
    /// The descriptor number, valid for as long as this value lives.
    let rawValue: Int32

    /// Takes ownership of `rawValue`, which must be an open descriptor nobody else closes.
    init(adopting rawValue: Int32) { self.rawValue = rawValue }

    deinit { _ = Glibc.close(rawValue) }

    /// Hands the descriptor to the caller, who closes it from then on.
    consuming func release() -> Int32 {
        let fd = rawValue
        discard self
        return fd
    }
}
