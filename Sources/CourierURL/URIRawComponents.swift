/// Borrowed UTF-8 bytes of every raw component of a ``URIReference``, for hot paths that must
/// not pay for a `Substring` per component (each one retains and releases the string).
///
/// The buffers point into the reference's storage and are valid only inside the closure given to
/// ``URIReference/withRawComponents(_:)``: never store or return them.
public struct URIRawComponents {
    public let scheme: UnsafeBufferPointer<UInt8>?
    public let userinfo: UnsafeBufferPointer<UInt8>?
    public let user: UnsafeBufferPointer<UInt8>?
    public let password: UnsafeBufferPointer<UInt8>?
    public let host: UnsafeBufferPointer<UInt8>?
    /// The port digits as written (possibly empty); see ``URIReference/port`` for the number.
    public let port: UnsafeBufferPointer<UInt8>?
    public let path: UnsafeBufferPointer<UInt8>
    public let query: UnsafeBufferPointer<UInt8>?
    public let fragment: UnsafeBufferPointer<UInt8>?

    @usableFromInline
    init(_ bytes: UnsafeBufferPointer<UInt8>, _ layout: URILayout) {
        @inline(__always)
        func slice(_ start: Int32, _ end: Int32) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: bytes[Int(start)..<Int(end)])
        }
        scheme = layout.schemeEnd >= 0 ? slice(0, layout.schemeEnd) : nil
        if layout.userinfoEnd >= 0 {
            userinfo = slice(layout.authorityStart, layout.userinfoEnd)
            user = slice(layout.authorityStart, layout.userinfoColon >= 0 ? layout.userinfoColon : layout.userinfoEnd)
            password = layout.userinfoColon >= 0 ? slice(layout.userinfoColon + 1, layout.userinfoEnd) : nil
        } else {
            userinfo = nil
            user = nil
            password = nil
        }
        host = layout.hostStart >= 0 ? slice(layout.hostStart, layout.hostEnd) : nil
        port = layout.portStart >= 0 ? slice(layout.portStart, layout.pathStart) : nil
        path = slice(layout.pathStart, layout.pathEnd)
        query = layout.queryStart >= 0 ? slice(layout.queryStart, layout.queryEnd) : nil
        fragment = layout.fragmentStart >= 0 ? slice(layout.fragmentStart, layout.end) : nil
    }
}

extension URIReference {
    /// Calls `body` with borrowed UTF-8 views of every raw component (no copy, no retain per
    /// component). The views are valid only during the call.
    @inlinable
    public func withRawComponents<R>(_ body: (URIRawComponents) throws -> R) rethrows -> R {
        // Parsing made the string native, so its UTF-8 is always contiguous.
        try string.utf8.withContiguousStorageIfAvailable { bytes in try body(URIRawComponents(bytes, layout)) }!
    }
}
