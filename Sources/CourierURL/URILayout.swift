/// Where each component of a parsed reference lies in its UTF-8 bytes: the parser's output.
///
/// Offsets are `Int32` so a ``URIReference`` stays small; `-1` marks an absent component.
/// Component ends follow from the next delimiter, so only starts and a few ends are stored.
@usableFromInline
struct URILayout: Sendable, Hashable {
    /// Offset of the `:` ending the scheme, or -1.
    @usableFromInline var schemeEnd: Int32 = -1
    /// Offset just after `//`, or -1 when there is no authority.
    @usableFromInline var authorityStart: Int32 = -1
    /// Offset of the `@` ending the userinfo, or -1.
    @usableFromInline var userinfoEnd: Int32 = -1
    /// Offset of the first `:` in the userinfo (user and password split there), or -1.
    @usableFromInline var userinfoColon: Int32 = -1
    @usableFromInline var hostStart: Int32 = -1
    @usableFromInline var hostEnd: Int32 = -1
    /// Offset just after the `:` of the port, or -1. The port ends where the path starts.
    @usableFromInline var portStart: Int32 = -1
    @usableFromInline var pathStart: Int32 = 0
    @usableFromInline var pathEnd: Int32 = 0
    /// Offset just after `?`, or -1. The query ends before `#` or at the end.
    @usableFromInline var queryStart: Int32 = -1
    /// Offset just after `#`, or -1. The fragment ends at the end.
    @usableFromInline var fragmentStart: Int32 = -1
    /// Total length in bytes.
    @usableFromInline var end: Int32 = 0
    /// The port's value, or -1 when absent or empty.
    @usableFromInline var port: Int32 = -1
    @usableFromInline var hostKind: URIHostKind? = nil
    /// Whether the scheme has uppercase letters (so ``URIReference/scheme`` must lowercase).
    @usableFromInline var schemeHasUppercase = false

    @inlinable var queryEnd: Int32 { fragmentStart >= 0 ? fragmentStart - 1 : end }
}
