#!/usr/bin/python3
# `spoofed_source.py URL`: calls OpenURL claiming to be `com.evil.spoofer`; prints the reply.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import sys, dbus
bus = dbus.SessionBus()
broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
options = dbus.Dictionary({"source-application": dbus.String("com.evil.spoofer"), "sourceApplication": dbus.String("com.evil.spoofer")}, signature="sv")
handled, bundle, reply = broker.OpenURL(sys.argv[1], options, dbus_interface="org.courier.Broker1", timeout=60)
print("%s %s [%s]" % (bool(handled), bundle, reply.get("source", "<none>")))
