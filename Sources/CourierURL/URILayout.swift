/// Where each component of a parsed reference lies in its UTF-8 bytes: the parser's output.
///
/// Offsets are `Int32` so a ``URIReference`` stays small; `-1` marks an absent component.
/// Component ends follow from the next delimiter, so only starts and a few ends are stored.
///
/// All fields live in the lanes of one `SIMD16<Int32>`: the fast path builds the value in a
/// vector register and it is stored and copied in whole 16-byte words. (With one `Int32` stored
/// property per field, the field-by-field stores of the parse were reloaded in wider words by the
/// copy out of the parser — store-forwarding stalls worth ~10% of a parse.)
@usableFromInline
struct URILayout: Sendable, Hashable {
    @usableFromInline var lanes: SIMD16<Int32>

    /// Every component absent, the path empty. (Lane by lane: an array literal would build an array.)
    @inlinable init() {
        lanes = SIMD16(-1, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1, 0, -1, -1, 0, 0)
    }

    // One accessor per lane of the SIMD layout: named offsets over one vector.
    /// Offset of the `:` ending the scheme, or -1.
    @inlinable var schemeEnd: Int32 { get { lanes[0] } set { lanes[0] = newValue } }
    /// Offset just after `//`, or -1 when there is no authority.
    @inlinable var authorityStart: Int32 { get { lanes[1] } set { lanes[1] = newValue } }
    /// Offset of the `@` ending the userinfo, or -1.
    @inlinable var userinfoEnd: Int32 { get { lanes[2] } set { lanes[2] = newValue } }
    /// Offset of the first `:` in the userinfo (user and password split there), or -1.
    @inlinable var userinfoColon: Int32 { get { lanes[3] } set { lanes[3] = newValue } }
    @inlinable var hostStart: Int32 { get { lanes[4] } set { lanes[4] = newValue } }
    @inlinable var hostEnd: Int32 { get { lanes[5] } set { lanes[5] = newValue } }
    /// Offset just after the `:` of the port, or -1. The port ends where the path starts.
    @inlinable var portStart: Int32 { get { lanes[6] } set { lanes[6] = newValue } }
    @inlinable var pathStart: Int32 { get { lanes[7] } set { lanes[7] = newValue } }
    @inlinable var pathEnd: Int32 { get { lanes[8] } set { lanes[8] = newValue } }
    /// Offset just after `?`, or -1. The query ends before `#` or at the end.
    @inlinable var queryStart: Int32 { get { lanes[9] } set { lanes[9] = newValue } }
    /// Offset just after `#`, or -1. The fragment ends at the end.
    @inlinable var fragmentStart: Int32 { get { lanes[10] } set { lanes[10] = newValue } }
    /// Total length in bytes.
    @inlinable var end: Int32 { get { lanes[11] } set { lanes[11] = newValue } }
    /// The port's value, or -1 when absent or empty.
    @inlinable var port: Int32 { get { lanes[12] } set { lanes[12] = newValue } }

    /// Which kind of host, or nil when there is no authority (lane 13: -1 for nil, else the case's index).
    @inlinable var hostKind: URIHostKind? {
        get {
            switch lanes[13] {
            case 0: .regName
            case 1: .ipv4
            case 2: .ipv6
            case 3: .ipvFuture
            default: nil
            }
        }
        set {
            lanes[13] = switch newValue {
            case .regName: 0
            case .ipv4: 1
            case .ipv6: 2
            case .ipvFuture: 3
            case nil: -1
            }
        }
    }

    /// Whether the scheme has uppercase letters (so ``URIReference/scheme`` must lowercase).
    @inlinable var schemeHasUppercase: Bool { get { lanes[14] != 0 } set { lanes[14] = newValue ? 1 : 0 } }

    @inlinable var queryEnd: Int32 { fragmentStart >= 0 ? fragmentStart - 1 : end }
}
