#!/usr/bin/python3
# `unawaited_drops.py FILE`: one caller drops FILE 70 times with `wait` false (it never waits for
# the app); prints how many were sent, how many refused, and the refusals' error names.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a client nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import os, sys, dbus
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
broker = dbus.Interface(bus.get_object("org.courier.Broker", "/org/courier/Broker"), "org.courier.Broker1")
sent, refused = 0, []
for i in range(70):
    with open(sys.argv[1], "rb") as f:
        try:
            broker.OpenFiles("", [dbus.types.UnixFd(f)], ["note-%d.txt" % i], dbus.Dictionary({"wait": False}, signature="sv"))
            sent += 1
        except dbus.DBusException as e:
            refused.append(e.get_dbus_name())
print(sent, len(refused), sorted(set(refused)))
