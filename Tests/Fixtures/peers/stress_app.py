#!/usr/bin/python3
# `stress_app.py MODE [ARG]`: a Courier app against the raw D-Bus contract, owning
# `COURIER_BUNDLE_ID`. Modes: `slow SECONDS` answers each OpenURL after SECONDS (without
# blocking its main loop); `checkin-twice` checks in, then again, and writes what the second
# CheckIn answered into checkin.txt; `impersonate OTHER` first checks in as OTHER (writing the
# answer into checkin.txt), then as itself.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# library: an app nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
from raw_app import *  # noqa: F401,F403 (the prelude: bus, broker, serve…)
class App(dbus.service.Object):
    @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}",
                         async_callbacks=("ok", "err"))
    def OpenURL(self, url, source, annotation, options, ok, err):
        delay = float(sys.argv[2]) if mode == "slow" else 0
        GLib.timeout_add(int(delay * 1000), lambda: (ok(True, dbus.Dictionary({}, signature="sv")), False)[1])
def record(text):
    with open(container_file("checkin.txt"), "w") as f:
        f.write(text)
def checkin(as_bundle):
    try:
        broker.CheckIn(as_bundle, dbus_interface="org.courier.Broker1")
        return "ok"
    except dbus.DBusException as e:
        return e.get_dbus_name() + ": " + e.get_dbus_message()
def check_in():
    if mode == "impersonate":
        record(checkin(sys.argv[2]))
    checkin(bundle)
    if mode == "checkin-twice":
        record(checkin(bundle))
serve(App, check_in=False, after_check_in=check_in)
