import BusTestSupport
import Courier
import Foundation
import Testing

/// The broker's registry queries (`HandlersForFile`, `ExplainHandlersForURL`, `Dump`, `SetDefault`)
/// from a client nobody here wrote: python-dbus, descriptors as `h`, against a real `courierd`
/// with the older apps' manifests and real files.
@Suite("Registry queries on a private bus", .serialized)
struct RegistryQueriesBusTests {
    @Test func aPythonClientGetsTheTypeAndTheAppsAsADropWould() async throws {
        let setup = try await OpenDocumentsTests.Setup()
        defer { setup.tearDown() }
        let script = try PythonScripts.install("handlers_for_file.py", #"""
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
            """#, in: setup.files)
        let result = try await BackgroundProcess.run("/usr/bin/python3", [script, setup.path("photo.txt")], environment: setup.environment)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            public.plain-text \(OpenDocumentsTests.wrangler)
            public.png \(OpenDocumentsTests.xee)
            public.png \(OpenDocumentsTests.xee)
            com.adobe.pdf \(OpenDocumentsTests.skim)
            org.courier.Error.NotPermitted
            org.courier.Error.NoHandler
            org.courier.Error.InvalidArguments
            org.courier.Error.InvalidArguments
            org.courier.Error.InvalidArguments
            public.plain-text \(OpenDocumentsTests.wrangler)
            org.courier.Error.InvalidArguments
            0 True

            """, "\(result.output)")
        // Still serving.
        #expect(try await setup.client.handlers(for: "nosuchscheme:x").isEmpty)
    }
}
