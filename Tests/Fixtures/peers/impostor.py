#!/usr/bin/python3
# `impostor.py BUNDLE OUT [wait]`: owns the bus name BUNDLE (with `wait`, retries every 50 ms
# until it gets it, e.g. when the real app exits), serves `org.courier.Application1.OpenURL`
# at the bundle's path — appending "STOLEN URL" to OUT/stolen.txt for anything it is sent —
# and calls `CheckIn(BUNDLE)`, writing the answer ("CHECKIN OK" or the error) into
# OUT/checkin.txt. Then, playing the app, it opens `echo://from-squatter` and writes the
# source application the echo app was told into OUT/forged.txt ("-" for none, or the error).
# OUT/owned.txt (its pid) is written last: the test's ready marker. With `fork` instead of
# `wait` it then forks and exits, and the child, which inherited the bus connection and so
# still holds the name, writes its pid into OUT/child.txt and serves on.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
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
