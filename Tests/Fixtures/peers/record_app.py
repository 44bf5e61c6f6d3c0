#!/usr/bin/python3
# `record_app.py MODE`: an app on the raw D-Bus contract owning `COURIER_BUNDLE_ID`. MODE
# `record` checks in and appends "URL SOURCE" for every OpenURL to seen.txt in its container;
# `hit` (launched by the broker) sends OpenURL(record://from-hitter) and exits at once,
# without checking in or reading the answer.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# library: an app nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
from raw_app import *  # noqa: F401,F403 (the prelude: bus, broker, serve…)
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
