#!/usr/bin/python3
# `flood.py URL_PREFIX COUNT MARKER`: one connection sends COUNT OpenURLs (URL_PREFIX + a
# number) without waiting for any answer, writes its unique name into MARKER once they are
# all on the wire, waits for every answer, then makes one more (awaited) OpenURL. Prints one
# JSON line: {"ok": n, "limited": n, "other": [...], "message": "...", "after": "..."}.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
from replies import *  # noqa: F401,F403 (the prelude: Replies)
prefix, count, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3]
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
replies = Replies(count, counted="org.courier.Error.LimitsExceeded")
for i in range(count):
    replies.open(broker, "%s%03d" % (prefix, i))
bus.flush()
with open(marker, "w") as f:
    f.write(bus.get_unique_name())
replies.run()
state = {"ok": replies.ok, "limited": replies.counted, "other": replies.other, "message": replies.message, "after": ""}
try:
    handled, bundle, reply = broker.OpenURL(prefix + "after", dbus.Dictionary({}, signature="sv"), dbus_interface="org.courier.Broker1", timeout=60)
    state["after"] = "handled" if handled else "declined"
except dbus.DBusException as e:
    state["after"] = e.get_dbus_name()
print(json.dumps(state))
