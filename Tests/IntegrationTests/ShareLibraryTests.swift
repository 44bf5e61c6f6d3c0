import BusTestSupport
@testable import Courier
import Foundation
import Synchronization
import Testing

/// `Application.share` from an app, on the bus with the real broker: the sheet is listed from a
/// lazy item's placeholder, the item gives its data only for the activity chosen, and a lazy item
/// that fails ends the share with nothing delivered.
@Suite("Sharing from an app", .serialized)
struct ShareLibraryTests {
    struct Sharer: ApplicationDelegate {}

    /// Chooses the activity with `id`, recording what it was offered.
    final class Pick: ShareChooser, @unchecked Sendable {
        let id: String
        let offered = Mutex<[String]>([])
        init(_ id: String) { self.id = id }
        func choose(from activities: [ShareActivity], items: [String]) async throws(CourierError) -> ShareChoice {
            offered.withLock { $0 = activities.map(\.id) }
            guard let activity = activities.first(where: { $0.id == id }) else { throw CourierError(.dismissed, "\(id) was not offered") }
            return ShareChoice(activity: activity)
        }
    }

    /// A task list rendered only when an activity asks for it.
    final class TaskList: ShareItemSource, @unchecked Sendable {
        let asked = Mutex<[String]>([])
        let fails: Bool
        init(fails: Bool = false) { self.fails = fails }
        var placeholder: ShareItem { .text("") }
        func item(for activity: ShareActivity) async throws -> ShareItem {
            asked.withLock { $0.append(activity.id) }
            if fails { throw CocoaError(.fileReadCorruptFile) }
            return .text("- milk\n- eggs\n")
        }
    }

    @Test func aLazyItemGivesItsDataOnlyForTheChosenActivity() async throws {
        let setup = try await ShareCommandTests.setup()
        defer { setup.tearDown() }
        let app = try Application(bundleID: "com.example.sharer", delegate: Sharer(), connection: try setup.daemon.bus.connect())
        let list = TaskList()
        let chooser = Pick("app:\(ShareCommandTests.notes)/add-note")
        let outcome = try await app.share([.source(list)], excluding: ["save-to"], chooser: chooser)
        #expect(outcome.activity.id == "app:\(ShareCommandTests.notes)/add-note")
        #expect(chooser.offered.withLock { $0 } == ["open-in:com.acme.todolist", "app:com.acme.todolist/add-tasks",
                                                    "open-in:\(OpenDocumentsTests.wrangler)", "app:\(ShareCommandTests.notes)/add-note", "nearby"])
        #expect(list.asked.withLock { $0 } == ["app:\(ShareCommandTests.notes)/add-note"])
        let inbox = setup.container(ShareCommandTests.notes) + "/Documents/Inbox"
        #expect(outcome.delivered == ["file://\(inbox)/Text.txt"])
        #expect(FileManager.default.contents(atPath: inbox + "/Text.txt") == Data("- milk\n- eggs\n".utf8))
        app.stop()
    }

    @Test func aLazyItemThatFailsSharesNothing() async throws {
        let setup = try await ShareCommandTests.setup()
        defer { setup.tearDown() }
        let app = try Application(bundleID: "com.example.sharer", delegate: Sharer(), connection: try setup.daemon.bus.connect())
        let list = TaskList(fails: true)
        do {
            _ = try await app.share([.source(list), .text("note")], chooser: Pick("open-in:\(OpenDocumentsTests.wrangler)"))
            Issue.record("the share went through")
        } catch {
            #expect(error.code == .failed)
            #expect(error.message.contains("item 1") && error.message.contains("nothing was shared"), "\(error.message)")
        }
        #expect(setup.inbox(OpenDocumentsTests.wrangler).isEmpty)
        app.stop()
    }

    @Test func withoutAChooserOrTerminalNobodyIsAsked() async throws {
        let setup = try await ShareCommandTests.setup()
        defer { setup.tearDown() }
        let app = try Application(bundleID: "com.example.sharer", delegate: Sharer(), connection: try setup.daemon.bus.connect())
        // The test runner's standard input is not a terminal.
        do {
            _ = try await app.share([.text("x")])
            Issue.record("the share went through")
        } catch {
            #expect(error.code == .nobodyToAsk)
        }
        app.stop()
    }
}
