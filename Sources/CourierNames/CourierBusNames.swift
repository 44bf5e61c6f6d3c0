/// The public D-Bus names of Courier (DESIGN.md, "Public contract"), spelled once: stable, extend,
/// don't rename. Plain strings, so the static `courier` front (libdbus only) uses them too; the
/// app library (`CourierBus`) and the broker (`BrokerNames`) give them their D-Bus types.
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
}
