/// Borrowed UTF-8 bytes of every raw component of a ``URIReference``, for hot paths that must
/// not pay for a `Substring` per component (each one retains and releases the string).
///
/// The buffers point into the reference's storage and are valid only inside the closure given to
/// ``URIReference/withRawComponents(_:)``: never store or return them.
public struct URIRawComponents {
    // The bytes and the layout only: each view is computed when read, so the value is small
    // (copied into the closure in a few words) and unread components cost nothing.
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline let layout: URILayout

    @inlinable
    init(_ bytes: UnsafeBufferPointer<UInt8>, _ layout: URILayout) {
        self.bytes = bytes
        self.layout = layout
    }

    @inlinable @inline(__always)
    func slice(_ start: Int32, _ end: Int32) -> UnsafeBufferPointer<UInt8> {
        // No range checks: the layout's offsets come from the parse of these bytes.
        UnsafeBufferPointer(start: bytes.baseAddress?.advanced(by: Int(start)), count: Int(end &- start))
    }

    @inlinable @inline(__always) public var scheme: UnsafeBufferPointer<UInt8>? { layout.schemeEnd >= 0 ? slice(0, layout.schemeEnd) : nil }
    @inlinable @inline(__always) public var userinfo: UnsafeBufferPointer<UInt8>? {
        layout.userinfoEnd >= 0 ? slice(layout.authorityStart, layout.userinfoEnd) : nil
    }
    @inlinable @inline(__always) public var user: UnsafeBufferPointer<UInt8>? {
        guard layout.userinfoEnd >= 0 else { return nil }
        return slice(layout.authorityStart, layout.userinfoColon >= 0 ? layout.userinfoColon : layout.userinfoEnd)
    }
    @inlinable @inline(__always) public var password: UnsafeBufferPointer<UInt8>? {
        layout.userinfoColon >= 0 ? slice(layout.userinfoColon + 1, layout.userinfoEnd) : nil
    }
    @inlinable @inline(__always) public var host: UnsafeBufferPointer<UInt8>? { layout.hostStart >= 0 ? slice(layout.hostStart, layout.hostEnd) : nil }
    /// The port digits as written (possibly empty); see ``URIReference/port`` for the number.
    @inlinable @inline(__always) public var port: UnsafeBufferPointer<UInt8>? { layout.portStart >= 0 ? slice(layout.portStart, layout.pathStart) : nil }
    @inlinable @inline(__always) public var path: UnsafeBufferPointer<UInt8> { slice(layout.pathStart, layout.pathEnd) }
    @inlinable @inline(__always) public var query: UnsafeBufferPointer<UInt8>? { layout.queryStart >= 0 ? slice(layout.queryStart, layout.queryEnd) : nil }
    @inlinable @inline(__always) public var fragment: UnsafeBufferPointer<UInt8>? {
        layout.fragmentStart >= 0 ? slice(layout.fragmentStart, layout.end) : nil
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
