#!/usr/bin/python3
# `nosy_app.py`: a Courier app (launched by the broker) that lists `todolist` in its
# `LSApplicationQueriesSchemes` and tries every way to learn who handles `notes:` too: the
# broker's answers to itself (CanOpenURL, HandlersForURL, a dry-run OpenURL,
# ListApplications) and to a `gdbus` it spawns. Writes "KEY=ANSWER" lines into nosy.txt in
# its container, then answers the URL it was launched for.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# library: an app nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
from raw_app import *  # noqa: F401,F403 (the prelude: bus, broker, serve…)
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
