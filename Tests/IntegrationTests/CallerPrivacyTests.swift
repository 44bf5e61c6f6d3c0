import BusTestSupport
import Courier
import CourierTools
import CourierBroker
import DBus
import Foundation
import Testing

/// The issue "Trust", the `LSApplicationQueriesSchemes` limit: every entry point that answers
/// "who handles this?" agrees, for the app and for a process it spawns, and answers a plain "no".
@Suite("Caller privacy on a private bus", .serialized)
struct CallerPrivacyTests {
    @Test func anAppAndTheProcessesItSpawnsLearnOnlyAboutTheSchemesItLists() async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.todolist()
            try writer.write("com.acme.notes", schemes: ["notes"], arguments: ["/bin/true"])
            let script = PythonPeers.path("nosy_app.py")
            try writer.write("com.acme.nosy", schemes: ["nosy"], arguments: [systemPython, script, "probe"], queries: ["todolist"])
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("nosy://start").handled)   // it probes right after CheckIn
        let file = fixture.dataHome.appendingPathComponent("courier/containers/com.acme.nosy/nosy.txt").path
        let answers = Dictionary(uniqueKeysWithValues: try String(contentsOfFile: file, encoding: .utf8)
            .split(separator: "\n").map { line in
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            })
        // Listed: the real answers.
        #expect(answers["todolist.can"] == "True")
        #expect(answers["todolist.handlers"] == "com.acme.todolist")
        #expect(answers["todolist.dryrun"] == "com.acme.todolist")
        #expect(answers["todolist.child"] == "(true,)")
        // Not listed: what a scheme nobody handles gets, from the app and from its child alike.
        #expect(answers["notes.can"] == "False", "\(answers)")
        #expect(answers["notes.handlers"] == "", "\(answers)")
        #expect(answers["notes.dryrun"] == "org.courier.Error.NoHandler", "\(answers)")
        #expect(answers["notes.child"] == "(false,)", "\(answers)")
        #expect(answers["list"] == "com.acme.nosy:nosy;com.acme.todolist:todolist", "\(answers)")
        #expect(answers["todolist.explain"] == "com.acme.todolist", "\(answers)")
        #expect(answers["notes.explain"] == "", "\(answers)")
        // What shows or changes everything is for the user's tools, not for an app.
        #expect(answers["dump"] == "org.courier.Error.NotPermitted", "\(answers)")
        #expect(answers["default"] == "org.courier.Error.NotPermitted", "\(answers)")
        // The user's shell is no app: full answers.
        #expect(try await fixture.client.canOpen("notes://www.acme.com?x"))
        #expect(try await fixture.client.listApplications().count == 3)
    }
}
