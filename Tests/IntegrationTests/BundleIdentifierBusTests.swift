import BusTestSupport
import Courier
import CourierTools
import CourierNames
import Foundation
import Testing

/// Apps whose bundle ids are not D-Bus names (`com.8bit.bitwarden`, `com.acme.todo-list`) on a real
/// bus: launched, opened by URL, and seen under the mapped name by tools nobody here wrote.
@Suite("Bundle ids that are not bus names, on a private bus", .serialized)
struct BundleIdentifierBusTests {
    @Test(arguments: [
        ("com.8bit.bitwarden", "com._8bit.bitwarden", "/com/_8bit/bitwarden"),
        ("com.acme.todo-list", "com.acme.todo_list", "/com/acme/todo_list"),
    ])
    func anAppIsLaunchedAndOpenedByURLUnderItsOwnIdentifier(_ bundleID: String, _ busName: String, _ path: String) async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.write(bundleID, schemes: ["todolist"], arguments: [Products.path("todolist")])
        }
        defer { fixture.tearDown() }
        let answer = try await fixture.client.open("todolist://www.acme.com?Quarterly%20Report#200806231300")
        #expect(answer.handled)
        #expect(answer.bundleID == bundleID, "people read the bundle id, not the bus name")
        #expect(fixture.launcher.count == 1)
        #expect(fixture.todoItems(bundleID).map { $0["task"] } == ["Quarterly Report"])
        // The bus knows the app by the mapped name and path (gdbus, not our binding).
        let owner = try await fixture.run("/usr/bin/gdbus", ["call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                                             "--method", "org.freedesktop.DBus.NameHasOwner", busName])
        #expect(owner.output.contains("(true,)"), "\(owner.output) \(owner.error)")
        let introspection = try await fixture.run("/usr/bin/gdbus", ["introspect", "--session", "--dest", busName, "--object-path", path])
        #expect(introspection.output.contains("org.courier.Application1"), "\(introspection.output) \(introspection.error)")
        // A second URL goes to the running instance.
        let warm = try await fixture.client.open("todolist://www.acme.com?Second#today")
        #expect(warm.handled && warm.bundleID == bundleID)
        #expect(fixture.launcher.count == 1)
        let listed = try await fixture.client.listApplications().first { $0["bundle-id"]?.stringValue == bundleID }
        #expect(listed?["state"]?.stringValue?.hasPrefix("idle") == true, "\(String(describing: listed))")
    }

    /// A process that takes the mapped bus name before the app ever ran is an impostor like any
    /// other: nothing is delivered, and the error names it.
    @Test func anImpostorHoldingTheMappedNameIsRefused() async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.write("com.8bit.bitwarden", schemes: ["todolist"], arguments: [Products.path("todolist")])
        }
        defer { fixture.tearDown() }
        let (impostor, out) = try ReceiverVerificationTests.impostor(fixture, bundleID: "com._8bit.bitwarden")
        defer { impostor.kill() }
        _ = try await ReceiverVerificationTests.waitForFile(out.appendingPathComponent("owned.txt"))
        let error = await #expect(throws: CourierError.self) { try await fixture.client.open("todolist://www.acme.com?Secret#today") }
        #expect(error?.dbusName == "org.courier.Error.NameSquatted", "\(String(describing: error))")
        #expect(error?.message.contains("pid \(impostor.pid)") == true, "\(error?.message ?? "")")
        #expect(ReceiverVerificationTests.read(out, "stolen.txt") == nil)
        #expect(fixture.todoItems("com.8bit.bitwarden").isEmpty)
    }
}
