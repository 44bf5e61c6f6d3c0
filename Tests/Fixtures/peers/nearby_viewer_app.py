#!/usr/bin/python3
# `nearby_viewer_app.py [decline-slowly]`: a Courier app on the raw D-Bus contract (launched by the
# broker) that writes the URL and annotation of each open into opened.json in its container;
# with `decline-slowly` it takes 2 s to answer, then declines.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# library: an app nobody here wrote, so what it records is what travelled on the bus.
import json, os, sys
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bundle = os.environ["COURIER_BUNDLE_ID"]
bus = dbus.SessionBus()
broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
def plain(value):
    if isinstance(value, dict): return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, dbus.Boolean): return bool(value)
    return str(value)
class App(dbus.service.Object):
    @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}")
    def OpenURL(self, url, source, annotation, options):
        with open(os.path.join(os.environ["COURIER_CONTAINER"], "opened.json"), "w") as f:
            json.dump({"url": str(url), "annotation": plain(annotation)}, f)
        if len(sys.argv) > 1 and sys.argv[1] == "decline-slowly":
            GLib.usleep(2 * 1000 * 1000)
            return (False, dbus.Dictionary({}, signature="sv"))
        return (True, dbus.Dictionary({}, signature="sv"))
app = App(bus, "/" + bundle.replace(".", "/"))
name = dbus.service.BusName(bundle, bus, do_not_queue=True)
broker.CheckIn(bundle, dbus_interface="org.courier.Broker1")
GLib.MainLoop().run()
