#!/usr/bin/python3
# `fake_app.py MODE`: a Courier app written against the raw D-Bus contract. It owns
# `COURIER_BUNDLE_ID`, serves Application1 and checks in. MODE `crash` exits (status 7) when
# asked to open anything; `echo` answers handled with the source application it was given;
# `probe` also asks CanOpenURL about todolist and notes after checking in (into probe.txt);
# `caller` opens echo://from-an-app and writes the answer into caller.txt.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# library: an app nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
from raw_app import *  # noqa: F401,F403 (the prelude: bus, broker, serve…)
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
