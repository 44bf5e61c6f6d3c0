#!/usr/bin/python3
# `open_files.py FILE…`: a dry-run OpenFiles of the FILEs (descriptors as `h`, names as their
# base names); prints one line per row: name, type, app (or -), accepted, whether an inbox URL came back.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a client nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import os, sys, dbus
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
broker = bus.get_object("org.courier.Broker", "/org/courier/Broker")
paths = sys.argv[1:]
fds = [dbus.types.UnixFd(open(p, "rb")) for p in paths]
names = [os.path.basename(p) for p in paths]
rows = broker.OpenFiles("", fds, names, dbus.Dictionary({"dry-run": True}, signature="sv"), dbus_interface="org.courier.Broker1")
for row in rows:
    print(row["name"], row["type"], row["bundle-id"] or "-", bool(row["accepted"]), "inbox-url" in row)
