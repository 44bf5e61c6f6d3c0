import CourierProtocol
import CourierTools
import CourierNames

/// `courier open -a APP`: the app named by bundle id or by name, among those the broker lists
/// (`ListApplications`), like macOS `open -a`. A bundle id wins; else the name, compared without
/// regard to case; several apps with that name is an error that lists them.
enum AppChoice {
    static func bundleID(for app: String) async throws(CourierError) -> String {
        let applications = try await BrokerConnection.withBroker { client throws(CourierError) in try await client.listApplications() }
        let rows = applications.map { (id: $0[CourierKey.bundleID] ?? "", name: $0[CourierKey.name] ?? "") }
        if rows.contains(where: { $0.id == app }) { return app }
        let named = rows.filter { $0.name.lowercased() == app.lowercased() }
        switch named.count {
        case 1:
            return named[0].id
        case 0:
            throw CourierError(.noHandler, "no registered app has the bundle id or name '\(app)'; `courier status` lists them")
        default:
            throw CourierError(.invalidArguments, "several apps are called '\(app)' (\(named.map(\.id).joined(separator: ", "))); give the bundle id with -a")
        }
    }
}
