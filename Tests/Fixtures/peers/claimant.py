#!/usr/bin/python3
# `claimant.py MODE BUNDLE_ID OUT [ARG…]`: a same-user process trying to be an app.
# `claim`: takes the bus name BUNDLE_ID, checks in as it, then, as that app, opens each ARG (a
# URL) or, for `drop:TARGET:PATH`, drops the file PATH on the app TARGET; `register`: registers the manifest ARG, then unregisters BUNDLE_ID. Each answer is one
# line in OUT/checkin.txt, open.txt, drop.txt, register.txt, unregister.txt ("OK" or "ERROR_NAME:
# message"); done.txt holds its pid once it has tried everything.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
import os, sys
import dbus
mode, bundle, out = sys.argv[1], sys.argv[2], sys.argv[3]
extra = sys.argv[4:]
bus = dbus.SessionBus()
broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
def note(name, text):
    with open(os.path.join(out, name), "a") as f:
        f.write(text + "\n")
def attempt(name, call):
    try:
        call()
        note(name, "OK")
    except dbus.DBusException as e:
        note(name, "%s: %s" % (e.get_dbus_name(), e.get_dbus_message()))
if mode == "claim":
    bus.request_name(bundle, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    attempt("checkin.txt", lambda: broker.CheckIn(bundle, dbus_interface="org.courier.Broker1"))
    for arg in extra:
        if arg.startswith("drop:"):
            target, _, path = arg[len("drop:"):].partition(":")
            with open(path, "rb") as f:
                attempt("drop.txt", lambda: broker.DropFiles(target, [dbus.types.UnixFd(f)], [os.path.basename(path)], dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60))
        else:
            attempt("open.txt", lambda: broker.OpenURL(arg, dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60))
elif mode == "register":
    attempt("register.txt", lambda: broker.RegisterManifest(extra[0], dbus_interface="org.courier.Broker1"))
    attempt("unregister.txt", lambda: broker.Unregister(bundle, dbus_interface="org.courier.Broker1"))
note("done.txt", "%d" % os.getpid())
