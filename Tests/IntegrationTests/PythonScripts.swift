import Foundation

/// Python programs (Debian's python3 with the `dbus` module): clients and apps nobody here wrote.
enum PythonScripts {
    /// Writes `source` to a file in `folder` and returns its path.
    static func install(_ name: String, _ source: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(source.utf8).write(to: url)
        return url.path
    }

    /// The skeleton of a client that fires many OpenURLs without waiting (GLib main loop):
    /// `Replies(count, counted=NAME)` sends them with `open(broker, url)`, counts the answers and
    /// quits the loop on the last one (`run()`, at most 100 s). `ok` counts handled answers,
    /// `other` lists "declined" and error names, except errors named NAME, counted in `counted`
    /// (the last one's message in `message`).
    static let repliesPrelude = #"""
    import json, os, sys
    import dbus, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    class Replies:
        def __init__(self, count, counted=None):
            self.left, self.ok, self.other = count, 0, []
            self.counted_name, self.counted, self.message = counted, 0, ""
            self.loop = GLib.MainLoop()
        def finished(self):
            self.left -= 1
            if self.left == 0:
                self.loop.quit()
        def handled(self, handled, bundle, reply):
            if handled:
                self.ok += 1
            else:
                self.other.append("declined")
            self.finished()
        def failed(self, error):
            if error.get_dbus_name() == self.counted_name:
                self.counted += 1
                self.message = error.get_dbus_message()
            else:
                self.other.append(error.get_dbus_name())
            self.finished()
        def open(self, broker, url):
            broker.OpenURL(url, dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1",
                           reply_handler=self.handled, error_handler=self.failed, timeout=120)
        def run(self):
            GLib.timeout_add_seconds(100, self.loop.quit)
            self.loop.run()

    """#

    /// The skeleton of an app written against the raw D-Bus contract, launched by the broker:
    /// `mode` (argv[1]), `bundle` (`COURIER_BUNDLE_ID`), `bus`, a `broker` proxy,
    /// `container_file(name)`, and `serve(App)`, which exports `App` (a `dbus.service.Object`
    /// class) at the bundle's object path, owns the bundle id, checks in (unless `check_in` is
    /// false) and runs the GLib main loop.
    static let appPrelude = #"""
    import os, sys
    import dbus, dbus.lowlevel, dbus.service, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    mode = sys.argv[1]
    bundle = os.environ["COURIER_BUNDLE_ID"]
    bus = dbus.SessionBus()
    broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
    def container_file(name):
        return os.path.join(os.environ["COURIER_CONTAINER"], name)
    def serve(app_class, check_in=True, after_check_in=None):
        app = app_class(bus, "/" + bundle.replace(".", "/").replace("-", "_"))
        name = dbus.service.BusName(bundle, bus, do_not_queue=True)
        if check_in:
            broker.CheckIn(bundle, dbus_interface="org.courier.Broker1")
        if after_check_in:
            after_check_in()
        GLib.MainLoop().run()

    """#

    /// `ordered_opens.py CONNECTIONS PER_CONNECTION`: each connection sends its OpenURLs one after
    /// the other without waiting (so they are concurrent), all connections interleaved; prints
    /// one JSON line: {"ok": n, "errors": [...]}.
    static let orderedOpens = repliesPrelude + #"""
    connections, per = int(sys.argv[1]), int(sys.argv[2])
    prefix = sys.argv[3] if len(sys.argv) > 3 else "c"
    address = os.environ["DBUS_SESSION_BUS_ADDRESS"]
    buses = [dbus.bus.BusConnection(address) for _ in range(connections)]
    brokers = [b.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False) for b in buses]
    replies = Replies(connections * per)
    for i in range(per):
        for c in range(connections):
            replies.open(brokers[c], "todolist://www.acme.com?%s%d-%03d" % (prefix, c, i))
    replies.run()
    print(json.dumps({"ok": replies.ok, "errors": replies.other}))
    """#

    /// `fake_app.py MODE`: a Courier app written against the raw D-Bus contract. It owns
    /// `COURIER_BUNDLE_ID`, serves Application1 and checks in. MODE `crash` exits (status 7) when
    /// asked to open anything; `echo` answers handled with the source application it was given;
    /// `probe` also asks CanOpenURL about todolist and notes after checking in (into probe.txt);
    /// `caller` opens echo://from-an-app and writes the answer into caller.txt.
    static let fakeApp = appPrelude + #"""
    class App(dbus.service.Object):
        @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}")
        def OpenURL(self, url, source, annotation, options):
            if mode == "crash":
                os._exit(7)
            return (True, dbus.Dictionary({"source": dbus.String(source)}, signature="sv"))
    def after_check_in():
        if mode == "probe":
            out = []
            for url in ["todolist://www.acme.com?x", "notes://y"]:
                try:
                    out.append("%s=%s" % (url.split(":")[0], bool(broker.CanOpenURL(url, dbus_interface="org.courier.Broker1"))))
                except dbus.DBusException as e:
                    out.append("%s=%s" % (url.split(":")[0], e.get_dbus_name()))
            with open(container_file("probe.txt"), "w") as f:
                f.write(" ".join(out))
        if mode == "caller":
            handled, target, reply = broker.OpenURL("echo://from-an-app", dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60)
            with open(container_file("caller.txt"), "w") as f:
                f.write("%s %s [%s]" % (bool(handled), target, reply.get("source", "<none>")))
    serve(App, after_check_in=after_check_in)
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
