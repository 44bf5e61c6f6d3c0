#!/usr/bin/python3
# `hello_service.py ADDRESS`: a dbus-python service on the bus at ADDRESS, named
# org.courier.test.Py, serving org.courier.test.Py1 at /org/courier/test/Py: `Hello (s who,
# a{sv} options) → (s greeting, as sorted option keys)` and `Boom ()`, which fails with
# org.courier.test.Error.Boom.
#
# dbus-python, not Courier's DBus module: a service nobody here wrote, so Swift's calls, replies
# and errors are checked against an implementation that shares none of its code.
import sys, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
class Service(dbus.service.Object):
    @dbus.service.method("org.courier.test.Py1", in_signature="sa{sv}", out_signature="sas")
    def Hello(self, who, options):
        return ("hello " + who, sorted(str(k) for k in options.keys()))
    @dbus.service.method("org.courier.test.Py1", in_signature="", out_signature="")
    def Boom(self):
        raise dbus.exceptions.DBusException("it went boom", name="org.courier.test.Error.Boom")
name = dbus.service.BusName("org.courier.test.Py", bus)
Service(bus, "/org/courier/test/Py")
GLib.MainLoop().run()
