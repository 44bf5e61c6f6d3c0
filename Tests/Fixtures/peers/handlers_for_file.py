#!/usr/bin/python3
# `handlers_for_file.py PHOTO`: asks HandlersForFile about PHOTO (a PNG named .txt) in every way a
# client can — by name, by descriptor, by announced MIME type, by type, for one app, with bad
# arguments, two descriptors, a pipe nobody writes, an option of the wrong type — and prints one
# line per answer ("TYPE APPS" or the error name), then what ExplainHandlersForURL says of a
# scheme nobody claims.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a client nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import os, sys, dbus
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
broker = dbus.Interface(bus.get_object("org.courier.Broker", "/org/courier/Broker"), "org.courier.Broker1")
def ask(name, fds, options):
    try:
        kind, ids, details = broker.HandlersForFile(name, dbus.Array(fds, signature="h"), dbus.Dictionary(options, signature="sv"))
        return "%s %s" % (kind, ",".join(ids) or "-")
    except dbus.DBusException as e:
        return e.get_dbus_name()
photo = sys.argv[1]
print(ask("photo.txt", [], {}))                                        # by its name: text
print(ask("photo.txt", [dbus.types.UnixFd(open(photo, "rb"))], {}))    # by its content: a PNG
print(ask("photo", [], {"mime-type": "image/png"}))                    # the name says nothing
print(ask("", [], {"type": "com.adobe.pdf"}))
print(ask("photo.txt", [], {"bundle-id": "org.xeeapp.Xee"}))
print(ask("photo.txt", [], {"bundle-id": "com.acme.nobody"}))
print(ask("", [], {"type": "not a type"}))
print(ask("", [], {}))
two = [dbus.types.UnixFd(open(photo, "rb")), dbus.types.UnixFd(open(photo, "rb"))]
print(ask("photo.txt", two, {}))
r, w = os.pipe()                                                        # never written: must not block
print(ask("notes.txt", [dbus.types.UnixFd(r)], {}))
print(ask("photo.txt", [], {"mime-type": 7}))
ids, details = broker.ExplainHandlersForURL("nosuchscheme:x")
print(len(ids), "advice" in details)
