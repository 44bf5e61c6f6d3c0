import CourierTools
import CourierNames
import CourierProtocol
import DBus
import Foundation
import Synchronization

/// `courier-test-app client --id C --opens N --round R --first A --count M [--in-flight K]
/// [--drops D --drop-folder DIR]`: one bus connection sending N `OpenURL`s (plan in `LoadPlan`), at
/// most K (default 32) awaiting their reply, then D `DropFiles` of one small text file each (written
/// in DIR, sent as an fd; at most 4 awaiting), then printing a `ClientSummary` as one JSON line.
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
        let drops = try options.int("--drops", default: 0)
        let dropFolder = options.optional("--drop-folder") ?? FileManager.default.temporaryDirectory.path
        try options.finish()
        guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] else {
            throw LoadError("courier-test-app client: DBUS_SESSION_BUS_ADDRESS is not set")
        }
        let connection = try DBusConnection(address: address)
        defer { connection.close() }
        let broker = BrokerToolClient(connection: connection)
        var summary = await send(opens, plan: plan, client: id, inFlight: inFlight, broker: broker)
        if drops > 0 { try await drop(drops, plan: plan, client: id, folder: dropFolder, broker: broker, into: &summary) }
        let json = try JSONEncoder().encode(summary)
        print(String(decoding: json, as: UTF8.self))
    }

    static func send(_ opens: Int, plan: LoadPlan, client id: Int, inFlight: Int, broker: BrokerToolClient) async -> ClientSummary {
        let clock = ContinuousClock()
        let start = clock.now
        var summary = ClientSummary(client: id, opens: opens)
        summary.openStart = Date().timeIntervalSince1970
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
                                return .failed(error.dbusName, error.message)
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
        summary.openEnd = Date().timeIntervalSince1970
        return summary
    }

    /// Drops `count` files, each to the app the plan gives for (client, k), at most 4 awaiting.
    static func drop(_ count: Int, plan: LoadPlan, client id: Int, folder: String, broker: BrokerToolClient, into summary: inout ClientSummary) async throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var files: [(bundleID: String, name: String, fd: UnixFD)] = []
        for k in 0..<count {
            let name = plan.dropName(client: id, drop: k)
            let path = folder + "/" + name
            try plan.dropContent(client: id, drop: k).write(toFile: path, atomically: false, encoding: .utf8)
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw LoadError("cannot open \(path): \(String(cString: strerror(errno)))") }
            files.append((LoadPlan.bundleID(plan.app(client: id, sequence: k)), name, UnixFD(taking: fd)))
        }
        let outcomes = await withTaskGroup(of: Outcome.self, returning: [Outcome].self) { group in
            var outcomes: [Outcome] = []
            for (index, file) in files.enumerated() {
                if index >= 4, let outcome = await group.next() { outcomes.append(outcome) }
                group.addTask {
                    do {
                        let reply = try await broker.connection.call(
                            Broker1.busName, path: Broker1.objectPath, interface: Broker1.name, method: Broker1.dropFiles.name,
                            [.string(file.bundleID), .fds([file.fd]), .strings([file.name]), .vardict([:])], timeout: .seconds(120))
                        let urls = reply.first?.stringArrayValue ?? []
                        return urls.count == 1 && urls[0].hasSuffix("/" + file.name) ? .handled : .failed("WrongReply", "DropFiles of \(file.name) answered \(urls)")
                    } catch let error as DBusError {
                        return .failed(error.name, error.message)
                    } catch {
                        return .failed("Failed", "\(error)")
                    }
                }
            }
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        files.forEach { $0.fd.close() }
        for outcome in outcomes {
            switch outcome {
            case .handled: summary.dropped += 1
            case .declined: break
            case .failed(let name, let message):
                summary.errors[name, default: 0] += 1
                if summary.firstError == nil { summary.firstError = "\(name): \(message)" }
            }
        }
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
    /// `DropFiles` answered with the file's Inbox URL.
    var dropped = 0
    /// D-Bus error name → count.
    var errors: [String: Int] = [:]
    var firstError: String?
    /// Time spent on the OpenURLs (not the drops), and when they started and ended (Unix time),
    /// so the driver can time all clients' opens together.
    var seconds = 0.0
    var openStart = 0.0
    var openEnd = 0.0
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
