#!/usr/bin/python3
"""A desktop portal file-chooser backend for Courier's tests: a python-dbus service (Debian
python3-dbus) serving org.freedesktop.impl.portal.FileChooser, as xdg-desktop-portal-gtk or -kde
do, but answering as a test says instead of showing a dialog. The real frontend
(/usr/libexec/xdg-desktop-portal) finds it through a .portal file; a test may also call it
directly, speaking the frontend's side.

    portal-file-chooser.py BUS_NAME RECORD ANSWER [DELAY]

ANSWER: a folder (OpenFile answers it as a file:// URI, response 0), `cancel` (response 1: the
person dismissed the dialog), `other` (response 2), `hang` (answers only when closed), `uri:URI`
(answers URI as is). Each call is appended to RECORD as a JSON line: the method, the handle, the
app id, the title and the options. Prints `ready` once it owns BUS_NAME.
"""
import json
import sys
import urllib.parse

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
IMPL = "org.freedesktop.impl.portal.FileChooser"
REQUEST = "org.freedesktop.impl.portal.Request"
bus_name, record, answer = sys.argv[1], sys.argv[2], sys.argv[3]
delay = float(sys.argv[4]) if len(sys.argv) > 4 else 0.2


def plain(value):
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Byte, dbus.Int16, dbus.UInt16, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64)):
        return int(value)
    if isinstance(value, dbus.Array) and all(isinstance(b, dbus.Byte) for b in value):
        return bytes(int(b) for b in value).rstrip(b"\0").decode(errors="replace")
    if isinstance(value, (dbus.Array, dbus.Struct)):
        return [plain(v) for v in value]
    return str(value)


def log(entry):
    with open(record, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")


class Request(dbus.service.Object):
    """The backend's request object at the handle: the frontend calls Close when the caller
    closes its request."""

    def __init__(self, bus, handle, finish):
        super().__init__(bus, handle)
        self.finish = finish

    @dbus.service.method(REQUEST, in_signature="", out_signature="")
    def Close(self):
        log({"call": "Close"})
        self.finish(2, {})
        self.remove_from_connection()


class Chooser(dbus.service.Object):
    def answer(self, method, handle, app_id, parent, title, options, reply, error):
        log({"call": method, "handle": str(handle), "app_id": str(app_id), "parent_window": str(parent), "title": str(title),
             "options": {str(k): plain(v) for k, v in options.items()}})
        done = []

        def finish(response, results):
            if not done:
                done.append(True)
                reply(dbus.UInt32(response), dbus.Dictionary(results, signature="sv"))

        request = Request(self.connection, handle, finish)

        def respond():
            if answer == "hang":
                return False
            if answer == "cancel":
                finish(1, {})
            elif answer == "other":
                finish(2, {})
            else:
                uri = answer[len("uri:"):] if answer.startswith("uri:") else "file://" + urllib.parse.quote(answer)
                finish(0, {"uris": dbus.Array([uri], signature="s")})
            try:
                request.remove_from_connection()
            except LookupError:
                pass
            return False

        GLib.timeout_add(int(delay * 1000), respond)

    @dbus.service.method(IMPL, in_signature="osssa{sv}", out_signature="ua{sv}", async_callbacks=("reply", "error"))
    def OpenFile(self, handle, app_id, parent, title, options, reply, error):
        self.answer("OpenFile", handle, app_id, parent, title, options, reply, error)

    @dbus.service.method(IMPL, in_signature="osssa{sv}", out_signature="ua{sv}", async_callbacks=("reply", "error"))
    def SaveFile(self, handle, app_id, parent, title, options, reply, error):
        self.answer("SaveFile", handle, app_id, parent, title, options, reply, error)

    @dbus.service.method(IMPL, in_signature="osssa{sv}", out_signature="ua{sv}", async_callbacks=("reply", "error"))
    def SaveFiles(self, handle, app_id, parent, title, options, reply, error):
        self.answer("SaveFiles", handle, app_id, parent, title, options, reply, error)


bus = dbus.SessionBus()
chooser = Chooser(bus, "/org/freedesktop/portal/desktop")
name = dbus.service.BusName(bus_name, bus, do_not_queue=True)
print("ready", flush=True)
GLib.MainLoop().run()
