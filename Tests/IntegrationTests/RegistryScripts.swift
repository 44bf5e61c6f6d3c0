/// A python-dbus process of the same user that changes the registry: it is no Courier app.
enum RegistryScripts {
    /// `registrar.py register PATH [replace]` or `registrar.py unregister BUNDLE`: prints its pid on
    /// the first line, then "OK RESULT" or "ERROR-NAME: MESSAGE".
    static let registrar = #"""
    import os, sys, dbus
    print(os.getpid(), flush=True)
    bus = dbus.SessionBus()
    broker = bus.get_object("org.courier.Broker", "/org/courier/Broker", introspect=False)
    B = "org.courier.Broker1"
    try:
        if sys.argv[1] == "register" and len(sys.argv) > 3:
            print("OK", broker.RegisterManifestWithOptions(sys.argv[2], dbus.Dictionary({"replace": True}, signature="sv"), dbus_interface=B))
        elif sys.argv[1] == "register":
            print("OK", broker.RegisterManifest(sys.argv[2], dbus_interface=B))
        else:
            broker.Unregister(sys.argv[2], dbus_interface=B)
            print("OK")
    except dbus.DBusException as e:
        print("%s: %s" % (e.get_dbus_name(), e.get_dbus_message()))
    """#
}

extension RegistryScripts {
    /// `unregister_app.py`: a Courier app that, once checked in, tries to unregister
    /// com.acme.todolist and writes the answer into unregister.txt in its container.
    static let unregisteringApp = PythonScripts.appPrelude + #"""
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
    """#
}
