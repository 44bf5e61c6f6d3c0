#!/usr/bin/python3
# `open_pipe.py`: a hostile client that sends the read end of a pipe it never writes to OpenFiles
# (a dry run, then for real), then names that are not one per file; prints each answer, then
# how many apps ListApplications still lists (the broker kept serving).
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a client nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import os, dbus
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
broker = dbus.Interface(bus.get_object("org.courier.Broker", "/org/courier/Broker"), "org.courier.Broker1")
r, w = os.pipe()
rows = broker.OpenFiles("", [dbus.types.UnixFd(r)], ["notes.txt"], dbus.Dictionary({"dry-run": True}, signature="sv"))
print(rows[0]["type"], rows[0]["bundle-id"])
for names in (["notes.txt"], []):
    try:
        broker.OpenFiles("", [dbus.types.UnixFd(r)], dbus.Array(names, signature="s"), dbus.Dictionary({}, signature="sv"))
        print("sent")
    except dbus.DBusException as e:
        print(e.get_dbus_name())
print(len(broker.ListApplications()))
