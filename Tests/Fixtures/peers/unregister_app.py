#!/usr/bin/python3
# `unregister_app.py`: a Courier app that, once checked in, tries to unregister
# com.acme.todolist and writes the answer into unregister.txt in its container.
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# library: an app nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
from raw_app import *  # noqa: F401,F403 (the prelude: bus, broker, serve…)
class App(dbus.service.Object):
    @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}")
    def OpenURL(self, url, source, annotation, options):
        return (True, dbus.Dictionary({}, signature="sv"))
def after_check_in():
    try:
        broker.Unregister("com.acme.todolist", dbus_interface="org.courier.Broker1")
        answer = "OK"
    except dbus.DBusException as e:
        answer = "%s: %s" % (e.get_dbus_name(), e.get_dbus_message())
    with open(container_file("unregister.txt"), "w") as f:
        f.write(answer)
serve(App, after_check_in=after_check_in)
