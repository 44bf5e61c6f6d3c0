extension DBusValue {
    /// About how many bytes this value takes in a message body: the bytes of strings and byte
    /// arrays, the size of each scalar, and the same for everything inside containers (alignment
    /// padding and container headers left out). What a service checks a caller's data against
    /// before keeping or forwarding it (the broker's annotation limit); a byte array or a string
    /// costs O(1), so the check is cheap exactly for the values that can be large.
    public var byteCount: Int {
        switch self {
        case .byte: 1
        case .boolean, .int32, .uint32, .unixFD: 4
        case .int16, .uint16: 2
        case .int64, .uint64, .double: 8
        case .string(let s): s.utf8.count
        case .objectPath(let p): p.rawValue.utf8.count
        case .signature(let g): g.rawValue.utf8.count
        case .variant(let inner): inner.byteCount
        case .bytes(let b): b.count
        case .array(_, let vs), .structure(let vs): vs.reduce(0) { $0 + $1.byteCount }
        case .dictionary(_, _, let es): es.reduce(0) { $0 + $1.key.byteCount + $1.value.byteCount }
        }
    }
}
