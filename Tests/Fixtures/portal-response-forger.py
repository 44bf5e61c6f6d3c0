#!/usr/bin/python3
"""Another process of the user on the session bus, forging the desktop portal's answer, for
Courier's tests (python3-dbus). It watches the bus as a monitor (BecomeMonitor, which dbus-daemon
and dbus-broker both allow the same user), so it sees each org.freedesktop.portal.FileChooser
OpenFile call with its handle_token, works out the request's path as the portal would
(/org/freedesktop/portal/desktop/request/SENDER/TOKEN), and emits from its own connection, several
times, Response(0, {"uris": ["file://FOLDER"]}) at that path — to the caller and to everyone.

    portal-response-forger.py FOLDER

Prints `ready` once watching and `forged PATH` for each request it answered.
"""
import os
import sys
import urllib.parse

import dbus
import dbus.lowlevel
import dbus.mainloop.glib
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
folder = sys.argv[1]
uri = "file://" + urllib.parse.quote(folder)
address = os.environ["DBUS_SESSION_BUS_ADDRESS"]
sender_bus = dbus.bus.BusConnection(address)
monitor = dbus.bus.BusConnection(address)


def forge(path, caller):
    for destination in (caller, None):
        signal = dbus.lowlevel.SignalMessage(path, "org.freedesktop.portal.Request", "Response")
        signal.append(dbus.UInt32(0), dbus.Dictionary({"uris": dbus.Array([uri], signature="s")}, signature="sv"), signature="ua{sv}")
        if destination:
            signal.set_destination(destination)
        sender_bus.send_message(signal)
    sender_bus.flush()
    return True


def watch(connection, message):
    if message.get_type() != 1 or message.get_interface() != "org.freedesktop.portal.FileChooser" or message.get_member() != "OpenFile":
        return
    args = message.get_args_list()
    token = str(args[2].get("handle_token", "")) if len(args) == 3 else ""
    caller = message.get_sender()
    if not token or not caller:
        return
    path = "/org/freedesktop/portal/desktop/request/%s/%s" % (caller[1:].replace(".", "_"), token)
    print("forged " + path, flush=True)
    forge(path, caller)
    # Again while the real portal has not answered yet.
    for delay in (100, 300, 600, 1000, 1500):
        GLib.timeout_add(delay, lambda: forge(path, caller) and False)


monitor.add_message_filter(watch)
monitor.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Monitoring", "BecomeMonitor",
                      "asu", (["type='method_call',interface='org.freedesktop.portal.FileChooser',member='OpenFile'"], 0))
print("ready", flush=True)
GLib.MainLoop().run()
