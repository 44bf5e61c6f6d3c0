#!/usr/bin/python3
# `calling_app.py MODE ATTEMPT…`: a Courier app that, once checked in, makes each ATTEMPT and
# writes "ATTEMPT=ANSWER" lines into calls.txt in its container (the error name when one is
# refused). Attempts: `open:URL` (its own OpenURL), `relay:URL` (OpenURL with `relayed`, as an
# app relaying org.freedesktop.Application.Open does), `can:URL` (CanOpenURL), `drop:BUNDLE:PATH`
# (DropFiles of the open file), `child:URL` (a `gdbus` it spawns calls OpenURL), `kill:BUNDLE`,
# `launch:BUNDLE`, `restart:BUNDLE` (Kill, Launch and Restart of another app, the last two with
# `arguments`), `args:URL` (OpenURL with `arguments`).
#
# Written against the D-Bus contract (docs/dbus-api.md) with python-dbus, not with Courier's
# library: an app nobody here wrote, so a test cannot pass by sharing Courier's own mistakes.
from raw_app import *  # noqa: F401,F403 (the prelude: bus, broker, serve…)
import subprocess
class App(dbus.service.Object):
    @dbus.service.method("org.courier.Application1", in_signature="ssva{sv}", out_signature="ba{sv}")
    def OpenURL(self, url, source, annotation, options):
        return (True, dbus.Dictionary({}, signature="sv"))
B = "org.courier.Broker1"
def answer(call):
    try:
        return str(call())
    except dbus.DBusException as e:
        return e.get_dbus_name()
def attempt(spec):
    kind, _, arg = spec.partition(":")
    if kind == "open":
        return answer(lambda: bool(broker.OpenURL(arg, dbus.Dictionary({}, signature="sv"), dbus_interface=B, timeout=60)[0]))
    if kind == "relay":
        return answer(lambda: bool(broker.OpenURL(arg, dbus.Dictionary({"relayed": True}, signature="sv"), dbus_interface=B, timeout=60)[0]))
    if kind == "can":
        return answer(lambda: bool(broker.CanOpenURL(arg, dbus_interface=B)))
    if kind == "drop":
        target, _, path = arg.partition(":")
        with open(path, "rb") as f:
            return answer(lambda: len(broker.DropFiles(target, [dbus.types.UnixFd(f)], [os.path.basename(path)], dbus.Dictionary({}, signature="sv"), dbus_interface=B, timeout=60)))
    evil = dbus.Dictionary({"arguments": dbus.Array(["--evil"], signature="s")}, signature="sv")
    if kind == "kill":
        return answer(lambda: broker.Kill(arg, dbus_interface=B))
    if kind == "launch":
        return answer(lambda: broker.Launch(arg, evil, dbus_interface=B, timeout=60))
    if kind == "restart":
        return answer(lambda: broker.Restart(arg, evil, dbus_interface=B, timeout=60))
    if kind == "args":
        return answer(lambda: bool(broker.OpenURL(arg, evil, dbus_interface=B, timeout=60)[0]))
    if kind == "child":
        child = subprocess.run(["gdbus", "call", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker",
                                "--method", "org.courier.Broker1.OpenURL", arg, "{}"], capture_output=True, text=True)
        return "ok" if child.returncode == 0 else ("org.courier.Error.NotPermitted" if "NotPermitted" in child.stderr else child.stderr.strip())
    return "unknown attempt"
def after_check_in():
    lines = ["%s=%s" % (spec, attempt(spec)) for spec in sys.argv[2:]]
    with open(container_file("calls.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
serve(App, after_check_in=after_check_in)
