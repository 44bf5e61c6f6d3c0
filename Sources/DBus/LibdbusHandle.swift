/// A libdbus watch or timeout pointer. Only the loop thread uses it outside the callbacks that
/// hand it over, and libdbus keeps it valid until the matching remove callback.
struct LibdbusHandle: @unchecked Sendable, Hashable {
    let pointer: OpaquePointer
}
