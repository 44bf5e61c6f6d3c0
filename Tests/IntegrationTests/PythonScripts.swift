import Foundation

/// Python programs (Debian's python3 with the `dbus` module): clients and apps nobody here wrote.
enum PythonScripts {
    /// Writes `source` to a file in `folder` and returns its path.
    static func install(_ name: String, _ source: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(source.utf8).write(to: url)
        return url.path
    }

    /// `ordered_opens.py CONNECTIONS PER_CONNECTION`: each connection sends its OpenURLs one after
    /// the other without waiting (so they are concurrent), all connections interleaved; prints
    /// one JSON line: {"ok": n, "errors": [...]}.
    static let orderedOpens = #"""
    import json, sys
    import dbus, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    import os
    connections, per = int(sys.argv[1]), int(sys.argv[2])
    address = os.environ["DBUS_SESSION_BUS_ADDRESS"]
    buses = [dbus.bus.BusConnection(address) for _ in range(connections)]
    brokers = [b.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False) for b in buses]
    loop = GLib.MainLoop()
    state = {"left": connections * per, "ok": 0, "errors": []}
    def finished():
        state["left"] -= 1
        if state["left"] == 0:
            loop.quit()
    def ok(handled, bundle, reply):
        if handled:
            state["ok"] += 1
        else:
            state["errors"].append("declined")
        finished()
    def failed(error):
        state["errors"].append(error.get_dbus_name())
        finished()
    for i in range(per):
        for c in range(connections):
            url = "todolist://www.acme.com?c%d-%03d" % (c, i)
            brokers[c].OpenURL(url, dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1",
                               reply_handler=ok, error_handler=failed, timeout=120)
    GLib.timeout_add_seconds(100, loop.quit)
    loop.run()
    print(json.dumps({"ok": state["ok"], "errors": state["errors"]}))
    """#

    /// `fake_app.py MODE`: a Courier app written against the raw D-Bus contract. It owns
    /// `COURIER_BUNDLE_ID`, serves Application1 and checks in. MODE `crash` exits (status 7) when
    /// asked to open anything; `echo` answers handled with the source application it was given;
    /// `probe` also asks CanOpenURL about todolist and notes after checking in (into probe.txt);
    /// `caller` opens echo://from-an-app and writes the answer into caller.txt.
    static let fakeApp = #"""
    import os, sys
    import dbus, dbus.service, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    mode = sys.argv[1]
    bundle = os.environ["COURIER_BUNDLE_ID"]
    bus = dbus.SessionBus()
    class App(dbus.service.Object):
        @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}")
        def OpenURL(self, url, source, annotation, options):
            if mode == "crash":
                os._exit(7)
            return (True, dbus.Dictionary({"source": dbus.String(source)}, signature="sv"))
    app = App(bus, "/" + bundle.replace(".", "/").replace("-", "_"))
    name = dbus.service.BusName(bundle, bus, do_not_queue=True)
    broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
    broker.CheckIn(bundle, dbus_interface="org.courier.Broker1")
    if mode == "probe":
        out = []
        for url in ["todolist://www.acme.com?x", "notes://y"]:
            try:
                out.append("%s=%s" % (url.split(":")[0], bool(broker.CanOpenURL(url, dbus_interface="org.courier.Broker1"))))
            except dbus.DBusException as e:
                out.append("%s=%s" % (url.split(":")[0], e.get_dbus_name()))
        with open(os.path.join(os.environ["COURIER_CONTAINER"], "probe.txt"), "w") as f:
            f.write(" ".join(out))
    if mode == "caller":
        handled, target, reply = broker.OpenURL("echo://from-an-app", dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60)
        with open(os.path.join(os.environ["COURIER_CONTAINER"], "caller.txt"), "w") as f:
            f.write("%s %s [%s]" % (bool(handled), target, reply.get("source", "<none>")))
    GLib.MainLoop().run()
    """#

    /// `open_with_source.py URL`: calls OpenURL claiming to be `com.evil.spoofer`; prints the reply.
    static let spoofedSource = #"""
    import sys, dbus
    bus = dbus.SessionBus()
    broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
    options = dbus.Dictionary({"source-application": dbus.String("com.evil.spoofer"), "sourceApplication": dbus.String("com.evil.spoofer")}, signature="sv")
    handled, bundle, reply = broker.OpenURL(sys.argv[1], options, dbus_interface="org.courier.Broker1", timeout=60)
    print("%s %s [%s]" % (bool(handled), bundle, reply.get("source", "<none>")))
    """#
}
