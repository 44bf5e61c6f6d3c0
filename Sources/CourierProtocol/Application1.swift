public import DBus
import CourierNames

/// `org.courier.Application1`, served by every Courier app at the object path made from its bundle
/// id (`ApplicationAddress`), on the bus and on its direct link to the broker.
public enum Application1 {
    public static let name = try! InterfaceName(CourierBusNames.applicationInterface)

    /// `(s url, s source_application, v annotation, a{sv} options) → (b handled, a{sv} reply)`
    /// (`DeliveryKey` for the options): only from the broker.
    public static let openURL = ProtocolMethod(
        name, try! MemberName(CourierBusNames.openURL), arguments: "ssva{sv}", results: "ba{sv}",
        argumentNames: ["url", "source_application", "annotation", "options"], resultNames: ["handled", "reply"])
    /// `(u deadline_ms) → ()`: the broker is about to terminate the app.
    public static let willTerminate = ProtocolMethod(name, "WillTerminate", arguments: "u", argumentNames: ["deadline_ms"])

    public static let interface = ProtocolInterface(name, methods: [openURL, willTerminate])
}

/// `org.freedesktop.Application` as Courier apps serve it (the freedesktop Desktop Entry
/// specification's D-Bus activation interface), and as the broker calls it for an app whose
/// manifest declares it.
public enum FreedesktopApplication {
    public static let name = try! InterfaceName(CourierBusNames.freedesktopApplicationInterface)

    public static let activate = ProtocolMethod(name, "Activate", arguments: "a{sv}", argumentNames: ["platform_data"])
    public static let open = ProtocolMethod(name, "Open", arguments: "asa{sv}", argumentNames: ["uris", "platform_data"])
    public static let activateAction = ProtocolMethod(
        name, "ActivateAction", arguments: "sava{sv}", argumentNames: ["action_name", "parameter", "platform_data"])

    public static let interface = ProtocolInterface(name, methods: [activate, open, activateAction])
}
