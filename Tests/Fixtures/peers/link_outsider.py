#!/usr/bin/python3
# `link_outsider.py ADDRESS VICTIM`: a process that never checked in connects to the link
# address and attaches as VICTIM; prints "ATTACHED" or "REFUSED <error name>".
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import sys, dbus
try:
    link = dbus.connection.Connection(sys.argv[1])
    link.get_object(None, "/org/courier/Broker", introspect=False).Attach(sys.argv[2], dbus_interface="org.courier.BrokerLink1", timeout=10)
    print("ATTACHED")
except dbus.DBusException as e:
    print("REFUSED", e.get_dbus_name())
