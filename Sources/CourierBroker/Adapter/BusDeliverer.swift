import CourierNames
import DBus
import CourierProtocol

/// Delivers requests with `org.courier.Application1.OpenURL`, addressed to the unique name that
/// checked in (so a replaced instance never receives another's request). A delivery is a D-Bus
/// call with a completion: no task waits while the app handles the URL.
///
/// The call waits the longer of `defaultTimeout` and the caller's deadline: a caller whose deadline
/// is shorter is answered by the dispatcher (`Unanswered`) while the app keeps the request. An app
/// that lets the call's own timeout pass is hung: `NotResponding`, naming it and its pid.
struct BusDeliverer: Deliverer {
    let connection: DBusConnection
    /// Direct links to apps that attached one: their deliveries skip the bus (`AppLinks`).
    var links: AppLinks?
    var defaultTimeout: Duration = .seconds(25)

    /// How long a delivery waits for the app's answer.
    private func timeout(_ delivery: Delivery) -> Duration { max(defaultTimeout, delivery.timeout ?? .zero) }

    func deliver(_ delivery: Delivery, to endpoint: AppEndpoint) async throws(CourierError) -> DeliveryAnswer {
        try await withCheckedContinuation { continuation in
            deliver(delivery, to: endpoint) { continuation.resume(returning: $0) }
        }.get()
    }

    func deliver(_ delivery: Delivery, to endpoint: AppEndpoint, completion: @escaping @Sendable (Result<DeliveryAnswer, CourierError>) -> Void) {
        if endpoint.freedesktopApplication { return open(delivery, in: endpoint, completion: completion) }
        let path: ObjectPath
        do { path = try ApplicationAddress(bundleID: endpoint.bundleID).objectPath } catch { return completion(.failure(error)) }
        guard let destination = BusName(validating: endpoint.uniqueName) else {
            return completion(.failure(CourierError(.appFailed, "\(endpoint.bundleID) checked in with an invalid bus name")))
        }
        var options = delivery.options.dbusDictionary(facts: delivery.facts)
        options[CourierKey.requestID] = delivery.requestID
        if delivery.isLaunchRequest { options[CourierKey.launch] = true }
        let request = ApplicationOpenRequest(
            url: delivery.url, sourceApplication: delivery.sourceApplication, annotation: delivery.options.annotation, options: options)
        let link = links?.connection(for: endpoint.uniqueName)
        let timeout = timeout(delivery)
        let sent = ContinuousClock.now
        (link ?? connection).call(
            link == nil ? destination : nil, path: path, interface: Application1.name, method: Application1.openURL.name, request.body,
            timeout: timeout
        ) { result in
            completion(Result { () throws(CourierError) in
                let message: DBusMessage
                do {
                    message = try result.get()
                } catch let error as DBusError where error.name == DBusError.noReplyName && ContinuousClock.now - sent >= timeout * 0.9 {
                    // NoReply before the deadline is the bus saying the app left without answering
                    // (it died: AppFailed below); only the deadline passing means it is hung.
                    throw CourierError(.notResponding, "\(endpoint.bundleID)\(endpoint.pid.map { " (pid \($0))" } ?? "") is not responding: it did not answer \(delivery.url) within \(timeout.formatted); `courier ps` marks it, and its next answer clears the mark")
                } catch let error as DBusError {
                    throw CourierErrorCode(dbusName: error.name).map { CourierError($0, error.message) }
                        ?? CourierError(.appFailed, "\(endpoint.bundleID) did not handle \(delivery.url): \(error.name): \(error.message)")
                } catch {
                    throw CourierError(.appFailed, "\(endpoint.bundleID) did not handle \(delivery.url): \(error)")
                }
                let answer = try ApplicationOpenReply(reply: message)
                return DeliveryAnswer(handled: answer.handled, reply: answer.reply)
            })
        }
    }

    func notifyTermination(_ endpoint: AppEndpoint, deadline: Duration, completion: @escaping @Sendable (Result<Void, CourierError>) -> Void) {
        let path: ObjectPath
        do { path = try ApplicationAddress(bundleID: endpoint.bundleID).objectPath } catch { return completion(.failure(error)) }
        guard let destination = BusName(validating: endpoint.uniqueName) else {
            return completion(.failure(CourierError(.appFailed, "\(endpoint.bundleID) checked in with an invalid bus name")))
        }
        let milliseconds = UInt32(clamping: deadline.components.seconds * 1000 + deadline.components.attoseconds / 1_000_000_000_000_000)
        // The call's own timeout is the deadline: the dispatcher's timer signals the app then anyway.
        connection.call(destination, path: path, interface: Application1.name, method: Application1.willTerminate.name, [.uint32(milliseconds)], timeout: deadline) { result in
            completion(Result { () throws(CourierError) in
                do {
                    _ = try result.get()
                } catch {
                    throw CourierError(.appFailed, "\(endpoint.bundleID) did not answer WillTerminate: \(error)")
                }
            })
        }
    }

    /// A foreign desktop app (any GApplication with `HANDLES_OPEN`): `org.freedesktop.Application.Open
    /// (as uris, a{sv} platform_data)` at its well-known name, which the bus activates when needed.
    /// The caller's activation token travels as `activation-token` and `desktop-startup-id`. Such an
    /// app cannot decline or reply: a completed call is `handled`.
    private func open(_ delivery: Delivery, in endpoint: AppEndpoint, completion: @escaping @Sendable (Result<DeliveryAnswer, CourierError>) -> Void) {
        let path: ObjectPath
        do { path = try ApplicationAddress(bundleID: endpoint.bundleID).objectPath } catch { return completion(.failure(error)) }
        guard let destination = BusName(validating: endpoint.bundleID) else {
            return completion(.failure(CourierError(.appFailed, "\(endpoint.bundleID) is not a valid bus name")))
        }
        var platformData: [String: DBusValue] = [:]
        if let token = delivery.options.activationToken {
            platformData[CourierKey.activationToken] = token
            platformData[CourierKey.desktopStartupID] = token
        }
        connection.call(
            destination, path: path, interface: FreedesktopApplication.name, method: FreedesktopApplication.open.name,
            [.strings([delivery.url]), .vardict(platformData)],
            timeout: timeout(delivery)
        ) { result in
            completion(Result { () throws(CourierError) in
                do {
                    _ = try result.get()
                } catch let error as DBusError {
                    // The bus could not start it: no service file, or the program failed to run.
                    if error.name == "org.freedesktop.DBus.Error.ServiceUnknown" || error.name.hasPrefix("org.freedesktop.DBus.Error.Spawn") {
                        throw CourierError(.launchFailed, "the bus could not start \(endpoint.bundleID) (\(error.name): \(error.message)); install its D-Bus service file (\(endpoint.bundleID).service)")
                    }
                    throw CourierError(.appFailed, "\(endpoint.bundleID) did not open \(delivery.url) through org.freedesktop.Application: \(error.name): \(error.message)")
                } catch {
                    throw CourierError(.appFailed, "\(endpoint.bundleID) did not open \(delivery.url) through org.freedesktop.Application: \(error)")
                }
                return DeliveryAnswer(handled: true)
            })
        }
    }
}
