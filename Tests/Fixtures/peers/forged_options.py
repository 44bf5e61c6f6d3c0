#!/usr/bin/python3
# `forged_options.py PATH`: an arbitrary caller asks the broker to have todolist import the
# file at PATH as if it had been dropped (`bundle-id` + `inbox`), the same without a target,
# a todolist URL with the broker's own keys forged (`inbox`, `source-application`,
# `request-id`, `launch`), and one with a mistyped option; prints one line per attempt:
# "HANDLED BUNDLE REPLY" or the error name.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import sys, dbus
bus = dbus.SessionBus()
broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
def attempt(url, options):
    try:
        handled, bundle, reply = broker.OpenURL(url, dbus.Dictionary(options, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60)
        print("%s %s" % (bool(handled), bundle))
    except dbus.DBusException as e:
        print(e.get_dbus_name())
attempt("file://" + sys.argv[1], {"bundle-id": "com.acme.todolist", "inbox": True})
attempt("file://" + sys.argv[1], {"inbox": True})
attempt("todolist://www.acme.com?Forged", {"inbox": True, "source-application": "com.acme.mail", "sourceApplication": "com.acme.mail", "request-id": dbus.UInt64(1), "launch": True})
attempt("todolist://www.acme.com?Typed", {"background": "yes"})
