#!/usr/bin/python3
# `fake_link_server.py OUT`: a link server that is not the broker (dbus-python's `Server` in
# folder OUT): writes its address to OUT/address.txt and notes every connection
# (connected.txt) and every `Attach` (attached.txt).
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
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
