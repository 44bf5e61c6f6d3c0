/// Courier's version, as `courier --version` and `courierd --version` print it. Raised with each
/// release; the D-Bus interfaces carry their own version in their names (`org.courier.Broker1`).
public enum CourierVersion {
    public static let current = "0.9.0"
}
