#!/usr/bin/python3
# `hit_and_run.py URL COUNT`: COUNT times, a fresh connection sends OpenURL(URL + n) and
# closes at once, never reading the answer (every other one also flags "no reply expected").
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import os, sys
import dbus, dbus.lowlevel
url, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    message = dbus.lowlevel.MethodCallMessage("org.courier.Broker", "/org/courier/Broker", "org.courier.Broker1", "OpenURL")
    message.append("%s%03d" % (url, i), dbus.Dictionary({}, signature="sv"), signature="sa{sv}")
    if i % 2:
        message.set_no_reply(True)
    bus.send_message(message)
    bus.flush()
    bus.close()
