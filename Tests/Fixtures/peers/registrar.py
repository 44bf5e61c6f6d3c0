#!/usr/bin/python3
# `registrar.py register PATH [replace]` or `registrar.py unregister BUNDLE`: prints its pid on
# the first line, then "OK RESULT" or "ERROR-NAME: MESSAGE".
# It plays a same-user process that changes the registry: it is no Courier app.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import os, sys, dbus
print(os.getpid(), flush=True)
bus = dbus.SessionBus()
broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
B = "org.courier.Broker1"
try:
    if sys.argv[1] == "register" and len(sys.argv) > 3:
        print("OK", broker.RegisterManifestWithOptions(sys.argv[2], dbus.Dictionary({"replace": True}, signature="sv"), dbus_interface=B))
    elif sys.argv[1] == "register":
        print("OK", broker.RegisterManifest(sys.argv[2], dbus_interface=B))
    else:
        broker.Unregister(sys.argv[2], dbus_interface=B)
        print("OK")
except dbus.DBusException as e:
    print("%s: %s" % (e.get_dbus_name(), e.get_dbus_message()))
