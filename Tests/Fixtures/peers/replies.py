#!/usr/bin/python3
# The skeleton of a client that fires many OpenURLs without waiting (GLib main loop):
# `Replies(count, counted=NAME)` sends them with `open(broker, url)`, counts the answers and
# quits the loop on the last one (`run()`, at most 100 s). `ok` counts handled answers,
# `other` lists "declined" and error names, except errors named NAME, counted in `counted`
# (the last one's message in `message`).
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import json, os, sys
import dbus, dbus.mainloop.glib
from gi.repository import GLib
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
class Replies:
    def __init__(self, count, counted=None):
        self.left, self.ok, self.other = count, 0, []
        self.counted_name, self.counted, self.message = counted, 0, ""
        self.loop = GLib.MainLoop()
    def finished(self):
        self.left -= 1
        if self.left == 0:
            self.loop.quit()
    def handled(self, handled, bundle, reply):
        if handled:
            self.ok += 1
        else:
            self.other.append("declined")
        self.finished()
    def failed(self, error):
        if error.get_dbus_name() == self.counted_name:
            self.counted += 1
            self.message = error.get_dbus_message()
        else:
            self.other.append(error.get_dbus_name())
        self.finished()
    def open(self, broker, url):
        broker.OpenURL(url, dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1",
                       reply_handler=self.handled, error_handler=self.failed, timeout=120)
    def run(self):
        GLib.timeout_add_seconds(100, self.loop.quit)
        self.loop.run()
