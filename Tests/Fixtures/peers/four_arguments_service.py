#!/usr/bin/python3
# `four_arguments_service.py ADDRESS`: a dbus-python service on the bus at ADDRESS, named
# org.courier.test.PyFour, serving org.courier.test.Py1 at /org/courier/test/Py: `Four (s, s, v,
# a{sv}) → (s, s, v, a{sv})`, the first string upper-cased, the rest as received.
#
# dbus-python, not Courier's DBus module: it decodes and re-encodes the bodies Swift writes by
# hand, so a body that only Courier's own reader would accept fails here.
import sys, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
class Service(dbus.service.Object):
    @dbus.service.method("org.courier.test.Py1", in_signature="ssva{sv}", out_signature="ssva{sv}")
    def Four(self, url, app, value, options):
        return (url.upper(), app, value, options)
name = dbus.service.BusName("org.courier.test.PyFour", bus)
Service(bus, "/org/courier/test/Py")
GLib.MainLoop().run()
