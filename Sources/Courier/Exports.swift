// What an app sees when it imports `Courier`: this module's API and Courier's own vocabulary
// (CourierNames: `CourierError` and its code table, `BundleIdentifier`, `CourierLayout`,
// dependency-free), never the D-Bus binding underneath: it is imported internally, so the
// compiler keeps its types out of every public signature (`CourierValue` wraps the values that
// travel). Nothing here is `package`: the user's tools reach the broker through CourierTools'
// `BrokerToolClient`, not through a door of the app library.
@_exported public import CourierNames
