import CourierNames

/// `courier open`'s exit statuses, as `OpenExitCode` in the full CLI defines and docs/broker.md
/// documents them (plain numbers here: this target links neither ArgumentParser nor `Courier`).
enum ExitStatus {
    static let declined: Int32 = 1
    static let invalidURL: Int32 = 2
    static let noHandler: Int32 = 3
    static let launchFailed: Int32 = 4
    static let launchTimeout: Int32 = 5
    static let appFailed: Int32 = 6
    static let notPermitted: Int32 = 7
    static let brokerUnavailable: Int32 = 8
    static let otherError: Int32 = 9

    /// The bus's own answers when nobody owns `org.courier.Broker` or the connection is gone
    /// (`CourierError` maps them to `brokerUnavailable` too).
    static let brokerUnreachableNames: Set<String> = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner", "org.freedesktop.DBus.Error.Disconnected",
    ]

    /// The status for a D-Bus error reply, as `OpenExitCode(CourierError(error))` maps it.
    static func forError(named name: String) -> Int32 {
        if brokerUnreachableNames.contains(name) { return brokerUnavailable }
        switch CourierErrorCode(dbusName: name) {
        case .invalidURL?: return invalidURL
        case .noHandler?: return noHandler
        case .launchFailed?: return launchFailed
        case .launchTimeout?: return launchTimeout
        case .appFailed?: return appFailed
        case .notPermitted?: return notPermitted
        case .declined?: return declined
        case CourierErrorCode(rawValue: "BrokerUnavailable")?: return brokerUnavailable
        default: return otherError
        }
    }
}
