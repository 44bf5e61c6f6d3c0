import Foundation

/// Python programs for the abuse tests (Debian's python3 with the `dbus` module): a flooding
/// client, clients that call and vanish, and an app that records who it was told asked.
enum AbuseScripts {
    /// `flood.py URL_PREFIX COUNT MARKER`: one connection sends COUNT OpenURLs (URL_PREFIX + a
    /// number) without waiting for any answer, writes its unique name into MARKER once they are
    /// all on the wire, waits for every answer, then makes one more (awaited) OpenURL. Prints one
    /// JSON line: {"ok": n, "limited": n, "other": [...], "message": "...", "after": "..."}.
    static let flood = PythonScripts.repliesPrelude + #"""
    prefix, count, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
    replies = Replies(count, counted="org.courier.Error.LimitsExceeded")
    for i in range(count):
        replies.open(broker, "%s%03d" % (prefix, i))
    bus.flush()
    with open(marker, "w") as f:
        f.write(bus.get_unique_name())
    replies.run()
    state = {"ok": replies.ok, "limited": replies.counted, "other": replies.other, "message": replies.message, "after": ""}
    try:
        handled, bundle, reply = broker.OpenURL(prefix + "after", dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60)
        state["after"] = "handled" if handled else "declined"
    except dbus.DBusException as e:
        state["after"] = e.get_dbus_name()
    print(json.dumps(state))
    """#

    /// `hit_and_run.py URL COUNT`: COUNT times, a fresh connection sends OpenURL(URL + n) and
    /// closes at once, never reading the answer (every other one also flags "no reply expected").
    static let hitAndRun = #"""
    import os, sys
    import dbus, dbus.lowlevel
    url, count = sys.argv[1], int(sys.argv[2])
    for i in range(count):
        bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
        message = dbus.lowlevel.MethodCallMessage("org.courier.Broker", "/org/courier/Broker", "org.courier.Broker1", "OpenURL")
        message.append("%s%03d" % (url, i), dbus.Dictionary({}, signature="sv"), signature="sa{sv}")
        if i % 2:
            message.set_no_reply(True)
        bus.send_message(message)
        bus.flush()
        bus.close()
    """#

    /// `record_app.py MODE`: an app on the raw D-Bus contract owning `COURIER_BUNDLE_ID`. MODE
    /// `record` checks in and appends "URL SOURCE" for every OpenURL to seen.txt in its container;
    /// `hit` (launched by the broker) sends OpenURL(record://from-hitter) and exits at once,
    /// without checking in or reading the answer.
    static let recordApp = PythonScripts.appPrelude + #"""
    if mode == "hit":
        message = dbus.lowlevel.MethodCallMessage("org.courier.Broker", "/org/courier/Broker", "org.courier.Broker1", "OpenURL")
        message.append("record://from-hitter", dbus.Dictionary({}, signature="sv"), signature="sa{sv}")
        bus.send_message(message)
        bus.flush()
        os._exit(0)
    class App(dbus.service.Object):
        @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}")
        def OpenURL(self, url, source, annotation, options):
            with open(container_file("seen.txt"), "a") as f:
                f.write("%s %s\n" % (url, source or "-"))
            return (True, dbus.Dictionary({}, signature="sv"))
    serve(App)
    """#
}
