#!/usr/bin/python3
# `peer_client.py ADDRESS PATH INTERFACE`: dbus-python connecting as a peer (no bus daemon) to the
# server at ADDRESS and calling INTERFACE.Hello("python") at PATH; prints the answer, or
# "REFUSED ERROR-NAME" when the server does not let it in.
#
# dbus-python (libdbus through Python's binding), not Courier's DBus module: a peer nobody here
# wrote, so the server's admission is checked against a client that shares none of its code.
import sys, dbus
try:
    c = dbus.connection.Connection(sys.argv[1])
    proxy = c.get_object(None, sys.argv[2], introspect=False)
    print(proxy.Hello("python", dbus_interface=sys.argv[3], timeout=5))
except dbus.DBusException as e:
    print("REFUSED", e.get_dbus_name())
