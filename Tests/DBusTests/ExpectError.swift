import DBus
import Testing

/// `body` fails with the D-Bus error `name`, whose message contains `text`.
func expectError(_ name: String, containing text: String = "", _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected \(name), got an answer")
    } catch let error as DBusError {
        #expect(error.name == name, "\(error)")
        #expect(text.isEmpty || error.message.contains(text), "\(error.message)")
    } catch {
        Issue.record("expected \(name), got \(error)")
    }
}
