#!/usr/bin/python3
# `recorder_app.py RECORD`: a Courier app written against the raw D-Bus contract (Python `dbus`):
# it checks in and appends every URL it is asked to open, NUL-terminated, to the file RECORD, so
# a test can compare what reached the app byte for byte with what xdg-open or gio open was given.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# library: an app nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import os, sys
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bundle = os.environ["COURIER_BUNDLE_ID"]
record = sys.argv[1]
bus = dbus.SessionBus()
class App(dbus.service.Object):
    @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}")
    def OpenURL(self, url, source, annotation, options):
        with open(record, "ab") as f:
            f.write(url.encode("utf-8") + b"\0")
        return (True, dbus.Dictionary({}, signature="sv"))
app = App(bus, "/" + bundle.replace(".", "/"))
name = dbus.service.BusName(bundle, bus, do_not_queue=True)
broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
broker.CheckIn(bundle, dbus_interface="org.courier.Broker1")
GLib.MainLoop().run()
