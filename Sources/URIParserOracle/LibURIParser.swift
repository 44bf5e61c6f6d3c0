internal import CURIParser

/// liburiparser (Debian `liburiparser-dev`, a strict RFC 3986 parser in C) as the benchmark and
/// the oracle read it. Every call into the C library is in this file.
///
/// `uriParseSingleUriExA` parses a URI reference into text ranges of the input (`UriUriA`), with
/// the path as a linked list of segments (allocated: `uriFreeUriMembersA` frees them). An empty
/// component may point at a static empty string of the library rather than into the input, so
/// only the lengths and bytes of the ranges are used, never their offsets.
public enum LibURIParser {
    /// Parses `bytes` with `uriParseSingleUriExA` and calls `body` with the components, or returns
    /// nil when uriparser refuses the input (`URI_ERROR_SYNTAX`). The views are valid only during
    /// the call.
    public static func parse<R>(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (Parsed) throws -> R) rethrows -> R? {
        var uri = UriUriA()
        let status = withFirstAndAfterLast(bytes) { first, afterLast in
            uriParseSingleUriExA(&uri, first, afterLast, nil)
        }
        // On an error uriparser has freed what it allocated itself.
        guard status == URI_SUCCESS else { return nil }
        defer { uriFreeUriMembersA(&uri) }
        return try body(Parsed(uri))
    }

    /// One parsed reference: borrowed views of its components (see ``LibURIParser/parse(_:_:)``).
    public struct Parsed {
        public let scheme: UnsafeBufferPointer<UInt8>?
        /// `userInfo`: everything before the `@`.
        public let userinfo: UnsafeBufferPointer<UInt8>?
        /// `hostText`: without the brackets of an IP literal; empty (not nil) for `file:///x`.
        public let host: UnsafeBufferPointer<UInt8>?
        public let hostKind: HostKind?
        /// `portText`: the digits as written, empty for `http://h:/`.
        public let port: UnsafeBufferPointer<UInt8>?
        public let query: UnsafeBufferPointer<UInt8>?
        public let fragment: UnsafeBufferPointer<UInt8>?
        /// `absolutePath`: whether a path without authority starts with `/` (always false with an
        /// authority, where every segment follows a `/`).
        public let absolutePath: Bool
        /// `pathHead`, the first of the linked segments (an `UriPathSegmentA`), or nil.
        private let pathHead: UnsafeRawPointer?

        fileprivate init(_ uri: UriUriA) {
            scheme = view(uri.scheme)
            userinfo = view(uri.userInfo)
            host = view(uri.hostText)
            if host == nil {
                hostKind = nil
            } else if uri.hostData.ip4 != nil {
                hostKind = .ipv4
            } else if uri.hostData.ip6 != nil {
                hostKind = .ipv6
            } else if uri.hostData.ipFuture.first != nil {
                hostKind = .ipvFuture
            } else {
                hostKind = .regName
            }
            port = view(uri.portText)
            query = view(uri.query)
            fragment = view(uri.fragment)
            absolutePath = uri.absolutePath == URI_TRUE
            pathHead = uri.pathHead.map { UnsafeRawPointer($0) }
        }

        /// Calls `body` with each path segment in order (uriparser's reading of a path).
        public func forEachPathSegment(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
            var segment = pathHead?.assumingMemoryBound(to: UriPathSegmentA.self)
            while let current = segment {
                try body(view(current.pointee.text) ?? UnsafeBufferPointer(start: nil, count: 0))
                segment = UnsafePointer(current.pointee.next)
            }
        }

        /// The length of the path as written: the segments, the `/` between them, and the leading
        /// `/` (there is one when there is an authority and a segment, or when `absolutePath`).
        public var pathByteCount: Int {
            var count = absolutePath ? 1 : 0
            var segments = 0
            forEachPathSegment { segment in
                count &+= segment.count
                segments &+= 1
            }
            if segments > 0 { count &+= host != nil ? segments : segments &- 1 }
            return count
        }
    }

    /// The kinds of host `UriHostDataA` tells apart.
    public enum HostKind: Sendable, Hashable {
        case regName, ipv4, ipv6, ipvFuture
    }
}

/// The bytes of a `UriTextRangeA`, or nil for an absent component (`first == NULL`).
private func view(_ range: UriTextRangeA) -> UnsafeBufferPointer<UInt8>? {
    guard let first = range.first, let afterLast = range.afterLast else { return nil }
    return UnsafeBufferPointer(
        start: UnsafeRawPointer(first).assumingMemoryBound(to: UInt8.self), count: afterLast - first)
}

/// `first` and `afterLast` for a C parser: a valid pointer even for an empty buffer (whose base
/// address Swift may leave nil; uriparser needs `first` non-NULL).
private func withFirstAndAfterLast<R>(
    _ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafePointer<CChar>, UnsafePointer<CChar>) -> R
) -> R {
    guard let base = bytes.baseAddress else {
        var empty: CChar = 0
        return withUnsafePointer(to: &empty) { body($0, $0) }
    }
    return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { body($0, $0 + bytes.count) }
}
