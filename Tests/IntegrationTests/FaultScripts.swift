import Foundation

/// Python programs for the fault and abuse tests (Debian's python3 with the `dbus` module).
enum FaultScripts {
    /// `stress_app.py MODE [ARG]`: a Courier app against the raw D-Bus contract, owning
    /// `COURIER_BUNDLE_ID`. Modes: `slow SECONDS` answers each OpenURL after SECONDS (without
    /// blocking its main loop); `checkin-twice` checks in, then again, and writes what the second
    /// CheckIn answered into checkin.txt; `impersonate OTHER` first checks in as OTHER (writing the
    /// answer into checkin.txt), then as itself.
    static let app = #"""
    import os, sys
    import dbus, dbus.service, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    mode = sys.argv[1]
    bundle = os.environ["COURIER_BUNDLE_ID"]
    bus = dbus.SessionBus()
    class App(dbus.service.Object):
        @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}",
                             async_callbacks=("ok", "err"))
        def OpenURL(self, url, source, annotation, options, ok, err):
            delay = float(sys.argv[2]) if mode == "slow" else 0
            GLib.timeout_add(int(delay * 1000), lambda: (ok(True, dbus.Dictionary({}, signature="sv")), False)[1])
    app = App(bus, "/" + bundle.replace(".", "/").replace("-", "_"))
    name = dbus.service.BusName(bundle, bus, do_not_queue=True)
    broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
    def record(text):
        with open(os.path.join(os.environ["COURIER_CONTAINER"], "checkin.txt"), "w") as f:
            f.write(text)
    def checkin(as_bundle):
        try:
            broker.CheckIn(as_bundle, dbus_interface="org.courier.Broker1")
            return "ok"
        except dbus.DBusException as e:
            return e.get_dbus_name() + ": " + e.get_dbus_message()
    if mode == "impersonate":
        record(checkin(sys.argv[2]))
    checkin(bundle)
    if mode == "checkin-twice":
        record(checkin(bundle))
    GLib.MainLoop().run()
    """#
}
