import Foundation
import Testing

/// docs/dbus-api/*.xml is what the running code says about itself (`gdbus introspect --xml`), so
/// the documented interfaces cannot drift from the served ones. Regenerate with scripts/dbus-api-xml.
@Suite(.serialized, .enabled(if: InstallScriptTests.built, "courier and courierd are not built beside the tests"))
struct DBusAPIDocumentationTests {
    @Test func committedIntrospectionMatchesTheRunningBrokerAndApp() async throws {
        let home = try TemporaryDesktopHome()
        let bin = InstallScriptTests.binDirectory
        var environment = home.environment(path: "\(bin):/usr/bin:/bin")
        environment["COURIER_MANIFEST_PATH"] = InstallScriptTests.repository + "/Schemes"
        environment["COURIER_LOG_LEVEL"] = "error"
        environment["COURIER_DESKTOP_ENTRIES"] = "0"
        let bus = try PrivateSessionBus(folder: home.root, environment: environment)
        let template = try String(contentsOfFile: InstallScriptTests.repository + "/dist/org.courier.Broker.service", encoding: .utf8)
        try template.replacingOccurrences(of: "@bindir@", with: bin)
            .write(toFile: bus.servicesFolder + "/org.courier.Broker.service", atomically: true, encoding: .utf8)
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address

        let broker = try await run("/usr/bin/gdbus", ["introspect", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker", "--xml"], environment: environment)
        let documentedBroker = try String(contentsOfFile: InstallScriptTests.repository + "/docs/dbus-api/org.courier.Broker.xml", encoding: .utf8)
        #expect(broker.output == documentedBroker, "org.courier.Broker changed: run scripts/dbus-api-xml and update docs/dbus-api.md")

        #expect(try await run(bin + "/courier", ["open", "todolist://www.acme.com?Introspection#200806231300"], environment: environment).status == 0)
        let app = try await run("/usr/bin/gdbus", ["introspect", "--session", "--dest", "com.acme.todolist", "--object-path", "/com/acme/todolist", "--xml"], environment: environment)
        let documentedApp = try String(contentsOfFile: InstallScriptTests.repository + "/docs/dbus-api/application.xml", encoding: .utf8)
        #expect(app.output == documentedApp, "the app interfaces changed: run scripts/dbus-api-xml and update docs/dbus-api.md")
    }
}
