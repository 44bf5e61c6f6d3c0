internal import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// Why a name, path or signature was rejected before it could reach libdbus.
public struct DBusValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of value was being validated ("object path", "bus name", …).
    public var kind: String
    /// The rejected input (truncated for display).
    public var input: String
    /// Why it was rejected, in libdbus's words when libdbus said it.
    public var reason: String

    public var description: String {
        let shown = input.count > 80 ? String(input.prefix(80)) + "…" : input
        return "invalid \(kind) '\(shown)': \(reason)"
    }
}

extension DBusValidationError {
    /// The standard D-Bus error a peer receives when it sent this invalid value.
    public var asDBusError: DBusError { .invalidArgs(description) }
}

/// All validators run here, before any string reaches a libdbus call that would abort on it.
enum NameValidation {
    /// Longest object path accepted (the spec sets none; unbounded paths crashed systemd, CVE-2019-6454).
    static let maximumPathLength = 4096

    static func checkCString(_ s: String, kind: String, maxLength: Int) throws(DBusValidationError) {
        if s.utf8.count > maxLength {
            throw DBusValidationError(kind: kind, input: s, reason: "longer than \(maxLength) bytes")
        }
        if containsNUL(s) {
            throw DBusValidationError(kind: kind, input: s, reason: "contains a NUL character")
        }
    }

    static func run(
        _ s: String, kind: String, maxLength: Int, allowsEmpty: Bool = false,
        _ validator: (UnsafePointer<CChar>, UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t
    ) throws(DBusValidationError) {
        try checkCString(s, kind: kind, maxLength: maxLength)
        if s.isEmpty && !allowsEmpty {
            throw DBusValidationError(kind: kind, input: s, reason: "is empty")
        }
        let failure: String? = s.withCString { cs in
            var err = CDBus.DBusError()
            dbus_error_init(&err)
            defer { dbus_error_free(&err) }
            if validator(cs, &err) != 0 { return nil }
            return err.message.map { String(cString: $0) } ?? "rejected by libdbus"
        }
        if let failure {
            throw DBusValidationError(kind: kind, input: s, reason: failure)
        }
    }

    static func path(_ s: String) throws(DBusValidationError) {
        try run(s, kind: "object path", maxLength: maximumPathLength) { dbus_validate_path($0, $1) }
    }
    static func busName(_ s: String) throws(DBusValidationError) {
        try run(s, kind: "bus name", maxLength: 255) { dbus_validate_bus_name($0, $1) }
    }
    static func interface(_ s: String) throws(DBusValidationError) {
        try run(s, kind: "interface name", maxLength: 255) { dbus_validate_interface($0, $1) }
    }
    static func member(_ s: String) throws(DBusValidationError) {
        // The whole rule, checked in Swift: `[A-Za-z_][A-Za-z0-9_]*`, 1–255 bytes. Method names
        // are usually string literals converted on every call, so this runs per call; libdbus is
        // asked only for a name that fails, to word the error.
        if isMemberName(s) { return }
        try run(s, kind: "member name", maxLength: 255) { dbus_validate_member($0, $1) }
    }

    /// Whether `s` is a valid member name (the spec's rule, no libdbus call).
    static func isMemberName(_ s: String) -> Bool {
        let utf8 = s.utf8
        guard !utf8.isEmpty, utf8.count <= 255 else { return false }
        var first = true
        for b in utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"): break
            case UInt8(ascii: "0")...UInt8(ascii: "9") where !first: break
            default: return false
            }
            first = false
        }
        return true
    }
    static func errorName(_ s: String) throws(DBusValidationError) {
        try run(s, kind: "error name", maxLength: 255) { dbus_validate_error_name($0, $1) }
    }
    static func signature(_ s: String) throws(DBusValidationError) {
        // The empty signature is valid: a message without arguments.
        try run(s, kind: "signature", maxLength: 255, allowsEmpty: true) { dbus_signature_validate($0, $1) }
    }
    /// Whether `s` has a NUL byte: `memchr` over a native string's bytes (every string of every
    /// message goes through here), byte by byte only for a bridged one.
    static func containsNUL(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { b in
            b.count > 0 && memchr(b.baseAddress!, 0, b.count) != nil
        } ?? s.utf8.contains(0)
    }

    /// D-Bus strings are UTF-8 (Swift guarantees it) without NUL.
    static func string(_ s: String) throws(DBusValidationError) {
        if containsNUL(s) {
            throw DBusValidationError(kind: "string", input: s, reason: "contains a NUL character, which D-Bus strings cannot carry")
        }
    }
}
