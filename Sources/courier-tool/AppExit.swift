import CourierTools
import DBus
import CourierNames
import CourierProtocol

/// `courier open --wait-exit` (macOS `open -W`): waits until the instance that answered has ended.
enum AppExit {
    /// Returns once `bundleID`'s instance running now has ended: the broker lists it not running,
    /// or running as another process (it was relaunched meanwhile). Looks twice a second: a
    /// state signal carries no pid for an end, so the instance is told apart by its pid here.
    static func wait(for bundleID: String, _ client: BrokerToolClient) async throws(CourierError) {
        let first = try await row(bundleID, client)
        guard let pid = first?[CourierKey.pid], first?[CourierKey.state] != "not-running" else { return }
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            let now = try await row(bundleID, client)
            if now?[CourierKey.state] == "not-running" || now?[CourierKey.pid] != pid { return }
        }
    }

    private static func row(_ bundleID: String, _ client: BrokerToolClient) async throws(CourierError) -> [String: DBusValue]? {
        try await client.processes().first { $0[CourierKey.bundleID] == bundleID }
    }
}
