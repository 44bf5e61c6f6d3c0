import Courier
import DBus
import Foundation
import Synchronization

/// `courier-test-app client --id C --opens N --round R --first A --count M [--in-flight K]`: one
/// bus connection sending N `OpenURL`s (plan in `LoadPlan`), at most K (default 32) awaiting their
/// reply, then printing a `ClientSummary` as one JSON line on stdout.
///
/// Send order is the sequence order: every request runs on the connection's own I/O thread (its
/// task executor) and takes its sequence number in the same synchronous stretch that hands the
/// message to libdbus, so no other request can be sent in between — what an app receives from
/// this client must therefore arrive in increasing sequence order.
enum LoadClient {
    static func run(arguments: [String]) async throws {
        var options = try LoadOptions.Parser(arguments, usage: "courier-test-app client --id C --opens N --round R --first A --count M [--in-flight K]")
        let id = try options.int("--id")
        let opens = try options.int("--opens")
        let plan = LoadPlan(round: try options.string("--round"), first: try options.int("--first"), count: try options.int("--count"))
        let inFlight = try options.int("--in-flight", default: 32)
        try options.finish()
        guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] else {
            throw LoadError("courier-test-app client: DBUS_SESSION_BUS_ADDRESS is not set")
        }
        let connection = try DBusConnection(address: address)
        defer { connection.close() }
        let summary = await send(opens, plan: plan, client: id, inFlight: inFlight, broker: BrokerClient(connection: connection))
        let json = try JSONEncoder().encode(summary)
        print(String(decoding: json, as: UTF8.self))
    }

    static func send(_ opens: Int, plan: LoadPlan, client id: Int, inFlight: Int, broker: BrokerClient) async -> ClientSummary {
        let clock = ContinuousClock()
        let start = clock.now
        var summary = ClientSummary(client: id, opens: opens)
        await withTaskExecutorPreference(broker.connection.executor) {
            await withTaskGroup(of: Outcome.self) { group in
                var next = 0
                var waiting = 0
                let sequencer = Sequencer()
                while next < opens || waiting > 0 {
                    while waiting < inFlight && next < opens {
                        group.addTask {
                            // Sequence number and send in one stretch on the I/O thread (see above).
                            let sequence = sequencer.take()
                            do throws(CourierError) {
                                return try await broker.open(plan.url(client: id, sequence: sequence)).handled ? .handled : .declined
                            } catch {
                                return .failed(error.dbusName ?? error.code.rawValue, error.message)
                            }
                        }
                        next += 1
                        waiting += 1
                    }
                    guard let outcome = await group.next() else { break }
                    waiting -= 1
                    switch outcome {
                    case .handled: summary.handled += 1
                    case .declined: summary.declined += 1
                    case .failed(let name, let message):
                        summary.errors[name, default: 0] += 1
                        if summary.firstError == nil { summary.firstError = "\(name): \(message)" }
                    }
                }
            }
        }
        summary.seconds = (clock.now - start).seconds
        return summary
    }

    enum Outcome: Sendable {
        case handled, declined
        case failed(String, String)
    }

    /// Hands out 0, 1, 2, … (only ever touched on the connection's single I/O thread; the lock
    /// just makes that checkable).
    final class Sequencer: Sendable {
        private let next = Mutex(0)
        func take() -> Int { next.withLock { n in defer { n += 1 }; return n } }
    }
}

/// What one client saw: every request must come back handled.
struct ClientSummary: Codable, Sendable {
    var client: Int
    var opens: Int
    var handled = 0
    var declined = 0
    /// D-Bus error name → count.
    var errors: [String: Int] = [:]
    var firstError: String?
    var seconds = 0.0
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
