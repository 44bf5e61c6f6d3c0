/// The spellings of Courier's public D-Bus contract (DESIGN.md, "Public contract") that the static
/// `courier` front needs, as plain strings: stable, extend, don't rename.
///
/// Everything else of the protocol is declared in `CourierProtocol`, which types these names and
/// declares every member, signature and option key. The front cannot link that module: it is on
/// the `DBus` binding, whose I/O thread and Swift concurrency runtime a one-call static
/// executable does not start (docs/broker.md, "`courier open` start-up"), so this dependency-free
/// module is the one home of what both need.
public enum CourierBusNames {
    /// The broker's well-known name.
    public static let broker = "org.courier.Broker"
    public static let brokerPath = "/org/courier/Broker"
    public static let brokerInterface = "org.courier.Broker1"
    /// What every Courier app serves at the object path made from its bundle id.
    public static let applicationInterface = "org.courier.Application1"
    /// What the broker serves on an app's direct link, off the bus (`Attach`).
    public static let brokerLinkInterface = "org.courier.BrokerLink1"
    /// The freedesktop interface desktop tools use to open URIs in an app.
    public static let freedesktopApplicationInterface = "org.freedesktop.Application"

    /// `org.courier.Broker1.OpenURL (s url, a{sv} options) → (b handled, s bundle_id, a{sv} reply)`.
    public static let openURL = "OpenURL"
    public static let openURLArguments = "sa{sv}"
    public static let openURLResults = "bsa{sv}"

    /// The option keys of `OpenURL` the front sends, and the key of the dry run's answer it reads.
    public enum OpenURLKey {
        public static let bundleID = "bundle-id"
        public static let background = "background"
        public static let activationToken = "activation-token"
        public static let dryRun = "dry-run"
        /// In a dry run's reply: the state of the app that would open the URL.
        public static let state = "state"
    }
}
