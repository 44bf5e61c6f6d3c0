#!/usr/bin/python3
# The skeleton of an app written against the raw D-Bus contract, launched by the broker:
# `mode` (argv[1]), `bundle` (`COURIER_BUNDLE_ID`), `bus`, a `broker` proxy,
# `container_file(name)`, and `serve(App)`, which exports `App` (a `dbus.service.Object`
# class) at the bundle's object path, owns the bundle id, checks in (unless `check_in` is
# false) and runs the GLib main loop.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# library: an app nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
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
