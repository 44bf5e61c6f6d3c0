#!/usr/bin/python3
# `link_hijacker.py VICTIM`: a real app the broker launches (it owns its bundle id and checks
# in, so it is admitted), which then uses its own link to try to take VICTIM's deliveries: it
# serves `OpenURL` on the link at VICTIM's path (noting anything it gets in received.txt),
# attaches as VICTIM (the outcome in hijack.txt: "ATTACHED" or the error name), then as
# itself (own.txt): `Attach` over the link, and the challenge it answers handed back with
# `ConfirmLink` over the bus. Files go into its container; ready.txt (its pid) is written last.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
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
