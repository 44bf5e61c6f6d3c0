/// Where each component of a parsed reference lies in its UTF-8 bytes: the parser's output.
///
/// Offsets are `Int32` so a ``URIReference`` stays small; `-1` marks an absent component.
/// Component ends follow from the next delimiter, so only starts and a few ends are stored.
struct URILayout: Sendable, Hashable {
    /// Offset of the `:` ending the scheme, or -1.
    var schemeEnd: Int32 = -1
    /// Offset just after `//`, or -1 when there is no authority.
    var authorityStart: Int32 = -1
    /// Offset of the `@` ending the userinfo, or -1.
    var userinfoEnd: Int32 = -1
    var hostStart: Int32 = -1
    var hostEnd: Int32 = -1
    /// Offset just after the `:` of the port, or -1. The port ends where the path starts.
    var portStart: Int32 = -1
    var pathStart: Int32 = 0
    var pathEnd: Int32 = 0
    /// Offset just after `?`, or -1. The query ends before `#` or at the end.
    var queryStart: Int32 = -1
    /// Offset just after `#`, or -1. The fragment ends at the end.
    var fragmentStart: Int32 = -1
    /// Total length in bytes.
    var end: Int32 = 0
    /// The port's value, or -1 when absent or empty.
    var port: Int32 = -1
    var hostKind: URIHostKind? = nil

    var queryEnd: Int32 { fragmentStart >= 0 ? fragmentStart - 1 : end }
}
