// What an app sees when it imports `Courier`: this module's API and Courier's own vocabulary
// (CourierNames: `CourierError` and its code table, `BundleIdentifier`, `CourierLayout`,
// dependency-free), never the D-Bus binding underneath (imported `package`, so its types stay
// out of every public signature: `CourierValue` wraps the values that travel).
@_exported public import CourierNames
