/// `courier open`'s exit statuses, as `OpenExitCode` in the full CLI defines and docs/broker.md
/// documents them (kept here as plain numbers: this target does not link the CLI's modules).
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

    /// The status for a D-Bus error reply, as `OpenExitCode(CourierError(error))` maps it.
    static func forError(named name: String) -> Int32 {
        let busUnreachable = ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner", "org.freedesktop.DBus.Error.Disconnected"]
        if busUnreachable.contains(name) { return brokerUnavailable }
        guard name.hasPrefix(OpenRunner.errorPrefix) else { return otherError }
        switch name.dropFirst(OpenRunner.errorPrefix.count) {
        case "InvalidURL": return invalidURL
        case "NoHandler": return noHandler
        case "LaunchFailed": return launchFailed
        case "LaunchTimeout": return launchTimeout
        case "AppFailed": return appFailed
        case "NotPermitted": return notPermitted
        case "Declined": return declined
        case "BrokerUnavailable": return brokerUnavailable
        default: return otherError
        }
    }
}
