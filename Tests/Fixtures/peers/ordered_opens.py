#!/usr/bin/python3
# `ordered_opens.py CONNECTIONS PER_CONNECTION`: each connection sends its OpenURLs one after
# the other without waiting (so they are concurrent), all connections interleaved; prints
# one JSON line: {"ok": n, "errors": [...]}.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# code: a peer nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
from replies import *  # noqa: F401,F403 (the prelude: Replies)
connections, per = int(sys.argv[1]), int(sys.argv[2])
prefix = sys.argv[3] if len(sys.argv) > 3 else "c"
address = os.environ["DBUS_SESSION_BUS_ADDRESS"]
buses = [dbus.bus.BusConnection(address) for _ in range(connections)]
brokers = [b.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False) for b in buses]
replies = Replies(connections * per)
for i in range(per):
    for c in range(connections):
        replies.open(brokers[c], "todolist://www.acme.com?%s%d-%03d" % (prefix, c, i))
replies.run()
print(json.dumps({"ok": replies.ok, "errors": replies.other}))
