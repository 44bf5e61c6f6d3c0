import Foundation

/// Python programs that play the attacker on the session bus (Debian's python3 with the `dbus`
/// module): processes of the same user that take an app's bus name, forge options, or call what
/// they should not.
enum AttackerScripts {
    /// `impostor.py BUNDLE OUT [wait]`: owns the bus name BUNDLE (with `wait`, retries every 50 ms
    /// until it gets it, e.g. when the real app exits), serves `org.courier.Application1.OpenURL`
    /// at the bundle's path — appending "STOLEN URL" to OUT/stolen.txt for anything it is sent —
    /// and calls `CheckIn(BUNDLE)`, writing the answer ("CHECKIN OK" or the error) into
    /// OUT/checkin.txt. Then, playing the app, it opens `echo://from-squatter` and writes the
    /// source application the echo app was told into OUT/forged.txt ("-" for none, or the error).
    /// OUT/owned.txt (its pid) is written last: the test's ready marker. With `fork` instead of
    /// `wait` it then forks and exits, and the child, which inherited the bus connection and so
    /// still holds the name, writes its pid into OUT/child.txt and serves on.
    static let impostor = #"""
    import os, sys, time
    import dbus, dbus.service, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bundle, out = sys.argv[1], sys.argv[2]
    mode = sys.argv[3] if len(sys.argv) > 3 else ""
    wait_for_name = mode == "wait"
    bus = dbus.SessionBus()
    def note(name, text):
        with open(os.path.join(out, name), "a") as f:
            f.write(text + "\n")
    class Stolen(dbus.service.Object):
        @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}")
        def OpenURL(self, url, source, annotation, options):
            note("stolen.txt", "STOLEN %s" % url)
            return (True, dbus.Dictionary({"stolen": True}, signature="sv"))
    app = Stolen(bus, "/" + bundle.replace(".", "/"))
    while True:
        reply = bus.request_name(bundle, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        if reply in (dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER, dbus.bus.REQUEST_NAME_REPLY_ALREADY_OWNER):
            break
        if not wait_for_name:
            sys.exit(3)
        time.sleep(0.05)
    broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
    try:
        broker.CheckIn(bundle, dbus_interface="org.courier.Broker1")
        note("checkin.txt", "CHECKIN OK")
    except dbus.DBusException as e:
        note("checkin.txt", "%s: %s" % (e.get_dbus_name(), e.get_dbus_message()))
    try:
        handled, target, reply = broker.OpenURL("echo://from-squatter", dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60)
        note("forged.txt", str(reply.get("source", "")) or "-")
    except dbus.DBusException as e:
        note("forged.txt", e.get_dbus_name())
    note("owned.txt", "%d" % os.getpid())
    if mode == "fork":
        if os.fork() > 0:
            os._exit(0)
        note("child.txt", "%d" % os.getpid())
    GLib.MainLoop().run()
    """#
}

extension AttackerScripts {
    /// `nosy_app.py`: a Courier app (launched by the broker) that lists `todolist` in its
    /// `LSApplicationQueriesSchemes` and tries every way to learn who handles `notes:` too: the
    /// broker's answers to itself (CanOpenURL, HandlersForURL, a dry-run OpenURL,
    /// ListApplications) and to a `gdbus` it spawns. Writes "KEY=ANSWER" lines into nosy.txt in
    /// its container, then answers the URL it was launched for.
    static let nosyApp = PythonScripts.appPrelude + #"""
    import subprocess
    class App(dbus.service.Object):
        @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}")
        def OpenURL(self, url, source, annotation, options):
            return (True, dbus.Dictionary({}, signature="sv"))
    def ask(call):
        try:
            return str(call())
        except dbus.DBusException as e:
            return e.get_dbus_name()
    def probe():
        B = "org.courier.Broker1"
        lines = []
        for scheme in ["todolist", "notes"]:
            url = scheme + "://www.acme.com?x"
            lines.append("%s.can=%s" % (scheme, ask(lambda: bool(broker.CanOpenURL(url, dbus_interface=B)))))
            lines.append("%s.handlers=%s" % (scheme, ask(lambda: ",".join(broker.HandlersForURL(url, dbus_interface=B)))))
            lines.append("%s.dryrun=%s" % (scheme, ask(lambda: broker.OpenURL(url, dbus.Dictionary({"dry-run": True}, signature="sv"), dbus_interface=B)[1])))
            child = subprocess.run(["gdbus", "call", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker",
                                    "--method", "org.courier.Broker1.CanOpenURL", url], capture_output=True, text=True)
            lines.append("%s.child=%s" % (scheme, (child.stdout or child.stderr).strip()))
        apps = broker.ListApplications(dbus_interface=B)
        lines.append("list=%s" % ";".join(sorted("%s:%s" % (a["bundle-id"], ",".join(a["schemes"])) for a in apps)))
        for scheme in ["todolist", "notes"]:
            lines.append("%s.explain=%s" % (scheme, ask(lambda: ",".join(broker.ExplainHandlersForURL(scheme + ":x", dbus_interface=B)[0]))))
        lines.append("dump=%s" % ask(lambda: len(broker.Dump(dbus.Dictionary({}, signature="sv"), dbus_interface=B)) > 0))
        lines.append("default=%s" % ask(lambda: broker.SetDefault("nosy", "com.acme.nosy", dbus.Dictionary({}, signature="sv"), dbus_interface=B)))
        with open(container_file("nosy.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    serve(App, after_check_in=probe)
    """#
}

extension AttackerScripts {
    /// `forged_options.py PATH`: an arbitrary caller asks the broker to have todolist import the
    /// file at PATH as if it had been dropped (`bundle-id` + `inbox`), the same without a target,
    /// a todolist URL with the broker's own keys forged (`inbox`, `source-application`,
    /// `request-id`, `launch`), and one with a mistyped option; prints one line per attempt:
    /// "HANDLED BUNDLE REPLY" or the error name.
    static let forgedOptions = #"""
    import sys, dbus
    bus = dbus.SessionBus()
    broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
    def attempt(url, options):
        try:
            handled, bundle, reply = broker.OpenURL(url, dbus.Dictionary(options, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60)
            print("%s %s" % (bool(handled), bundle))
        except dbus.DBusException as e:
            print(e.get_dbus_name())
    attempt("file://" + sys.argv[1], {"bundle-id": "com.acme.todolist", "inbox": True})
    attempt("file://" + sys.argv[1], {"inbox": True})
    attempt("todolist://www.acme.com?Forged", {"inbox": True, "source-application": "com.acme.mail", "sourceApplication": "com.acme.mail", "request-id": dbus.UInt64(1), "launch": True})
    attempt("todolist://www.acme.com?Typed", {"background": "yes"})
    """#
}

/// Python programs that attack the direct broker–app links (`AppLinks`, `BrokerLink`).
enum LinkAttackerScripts {
    /// `link_hijacker.py VICTIM`: a real app the broker launches (it owns its bundle id and checks
    /// in, so it is admitted), which then uses its own link to try to take VICTIM's deliveries: it
    /// serves `OpenURL` on the link at VICTIM's path (noting anything it gets in received.txt),
    /// attaches as VICTIM (the outcome in hijack.txt: "ATTACHED" or the error name), then as
    /// itself (own.txt): `Attach` over the link, and the challenge it answers handed back with
    /// `ConfirmLink` over the bus. Files go into its container; ready.txt (its pid) is written last.
    static let hijacker = #"""
    import os, sys
    import dbus, dbus.service, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bundle, victim = os.environ["COURIER_BUNDLE_ID"], sys.argv[1]
    def note(name, text):
        with open(os.path.join(os.environ["COURIER_CONTAINER"], name), "a") as f:
            f.write(text + "\n")
    class App(dbus.service.Object):
        @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}")
        def OpenURL(self, url, source, annotation, options):
            note("received.txt", url)
            return (True, dbus.Dictionary({}, signature="sv"))
    bus = dbus.SessionBus()
    App(bus, "/" + bundle.replace(".", "/"))
    name = dbus.service.BusName(bundle, bus, do_not_queue=True)
    broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
    answer = broker.CheckIn(bundle, dbus_interface="org.courier.Broker1")
    address = str(answer.get("link-address", ""))
    note("address.txt", address)
    link = dbus.connection.Connection(address)
    App(link, "/" + victim.replace(".", "/"))
    App(link, "/" + bundle.replace(".", "/"))
    proxy = link.get_object(None, "/org/courier/Broker", introspect=False)
    def attach(as_bundle):
        try:
            challenge = proxy.Attach(as_bundle, dbus_interface="org.courier.BrokerLink1", timeout=10)
            broker.ConfirmLink(challenge, dbus_interface="org.courier.Broker1")
            return "ATTACHED"
        except dbus.DBusException as e:
            return e.get_dbus_name()
    note("hijack.txt", attach(victim))
    note("own.txt", attach(bundle))
    note("ready.txt", str(os.getpid()))
    GLib.MainLoop().run()
    """#

    /// `link_outsider.py ADDRESS VICTIM`: a process that never checked in connects to the link
    /// address and attaches as VICTIM; prints "ATTACHED" or "REFUSED <error name>".
    static let outsider = #"""
    import sys, dbus
    try:
        link = dbus.connection.Connection(sys.argv[1])
        link.get_object(None, "/org/courier/Broker", introspect=False).Attach(sys.argv[2], dbus_interface="org.courier.BrokerLink1", timeout=10)
        print("ATTACHED")
    except dbus.DBusException as e:
        print("REFUSED", e.get_dbus_name())
    """#

    /// `fake_link_server.py OUT`: a link server that is not the broker (dbus-python's `Server` in
    /// folder OUT): writes its address to OUT/address.txt and notes every connection
    /// (connected.txt) and every `Attach` (attached.txt).
    static let fakeServer = #"""
    import os, sys
    import dbus, dbus.server, dbus.service, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    out = sys.argv[1]
    def note(name, text):
        with open(os.path.join(out, name), "a") as f:
            f.write(text + "\n")
    class Link(dbus.service.Object):
        @dbus.service.method("org.courier.BrokerLink1", in_signature="s", out_signature="")
        def Attach(self, bundle):
            note("attached.txt", bundle)
    server = dbus.server.Server("unix:dir=" + out)
    def added(server, connection):
        note("connected.txt", "connection")
        Link(connection, "/org/courier/Broker")
    server.on_connection_added.append(added)
    tmp = os.path.join(out, "address.tmp")
    with open(tmp, "w") as f:
        f.write(server.address)
    os.rename(tmp, os.path.join(out, "address.txt"))
    GLib.MainLoop().run()
    """#
}

extension AttackerScripts {
    /// `claimant.py MODE BUNDLE_ID OUT [ARG…]`: a same-user process trying to be an app.
    /// `claim`: takes the bus name BUNDLE_ID, checks in as it, then, as that app, opens each ARG (a
    /// URL) or, for `drop:TARGET:PATH`, drops the file PATH on the app TARGET; `register`: registers the manifest ARG, then unregisters BUNDLE_ID. Each answer is one
    /// line in OUT/checkin.txt, open.txt, drop.txt, register.txt, unregister.txt ("OK" or "ERROR_NAME:
    /// message"); done.txt holds its pid once it has tried everything.
    static let claimant = #"""
    import os, sys
    import dbus
    mode, bundle, out = sys.argv[1], sys.argv[2], sys.argv[3]
    extra = sys.argv[4:]
    bus = dbus.SessionBus()
    broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
    def note(name, text):
        with open(os.path.join(out, name), "a") as f:
            f.write(text + "\n")
    def attempt(name, call):
        try:
            call()
            note(name, "OK")
        except dbus.DBusException as e:
            note(name, "%s: %s" % (e.get_dbus_name(), e.get_dbus_message()))
    if mode == "claim":
        bus.request_name(bundle, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        attempt("checkin.txt", lambda: broker.CheckIn(bundle, dbus_interface="org.courier.Broker1"))
        for arg in extra:
            if arg.startswith("drop:"):
                target, _, path = arg[len("drop:"):].partition(":")
                with open(path, "rb") as f:
                    attempt("drop.txt", lambda: broker.DropFiles(target, [dbus.types.UnixFd(f)], [os.path.basename(path)], dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60))
            else:
                attempt("open.txt", lambda: broker.OpenURL(arg, dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60))
    elif mode == "register":
        attempt("register.txt", lambda: broker.RegisterManifest(extra[0], dbus_interface="org.courier.Broker1"))
        attempt("unregister.txt", lambda: broker.Unregister(bundle, dbus_interface="org.courier.Broker1"))
    note("done.txt", "%d" % os.getpid())
    """#
}
