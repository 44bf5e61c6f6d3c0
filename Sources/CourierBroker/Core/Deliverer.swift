public import CourierNames
public import DBus

/// The edge of the broker core that calls an app: the D-Bus adapter implements it with
/// `org.courier.Application1.OpenURL`; tests implement it in process.
public protocol Deliverer: Sendable {
    /// Delivers one request to the app behind `endpoint` and returns its answer.
    ///
    /// Throws `AppFailed` when the app errs, leaves the bus or dies before answering,
    /// `NotResponding` when it has not answered by the deliverer's own deadline (the longer of its
    /// default and `delivery.timeout`, the caller's: the core answers a caller whose deadline is
    /// shorter by itself), and `LaunchTimeout`-free errors only: the core handles launching.
    func deliver(_ delivery: Delivery, to endpoint: AppEndpoint) async throws(CourierError) -> DeliveryAnswer

    /// The same delivery without a waiting task: starts it and returns, and `completion` runs
    /// exactly once with the answer, on whatever thread it arrives on (or at once, when the
    /// delivery cannot start). The dispatcher uses this form; the default runs the `async` one in
    /// a task, and the D-Bus deliverer sends a call with a completion.
    func deliver(_ delivery: Delivery, to endpoint: AppEndpoint, completion: @escaping @Sendable (Result<DeliveryAnswer, CourierError>) -> Void)

    /// Tells the app it is about to be terminated (`org.courier.Application1.WillTerminate` with
    /// the deadline in milliseconds): `completion` runs once the app has answered — it has saved
    /// what it wanted to — or the call failed. The default answers at once (an app reached in
    /// process, without a bus, has nothing to be told).
    func notifyTermination(_ endpoint: AppEndpoint, deadline: Duration, completion: @escaping @Sendable (Result<Void, CourierError>) -> Void)
}

extension Deliverer {
    public func deliver(_ delivery: Delivery, to endpoint: AppEndpoint, completion: @escaping @Sendable (Result<DeliveryAnswer, CourierError>) -> Void) {
        Task {
            do throws(CourierError) {
                completion(.success(try await deliver(delivery, to: endpoint)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    public func notifyTermination(_ endpoint: AppEndpoint, deadline: Duration, completion: @escaping @Sendable (Result<Void, CourierError>) -> Void) {
        completion(.success(()))
    }
}

/// The address of a checked-in app on the bus.
public struct AppEndpoint: Sendable, Hashable {
    public var bundleID: String
    /// The unique connection name that checked in (e.g. `:1.42`); for a foreign desktop app, its
    /// well-known name (the bundle id), which the bus activates on demand.
    public var uniqueName: String
    /// Deliver with `org.freedesktop.Application.Open` (a foreign app) instead of
    /// `org.courier.Application1.OpenURL`.
    public var freedesktopApplication: Bool
    /// The app's process when the broker launched or holds it: errors name it.
    public var pid: Int32?

    public init(bundleID: String, uniqueName: String, freedesktopApplication: Bool = false, pid: Int32? = nil) {
        self.bundleID = bundleID
        self.uniqueName = uniqueName
        self.freedesktopApplication = freedesktopApplication
        self.pid = pid
    }
}

/// One request on its way to an app.
public struct Delivery: Sendable {
    public var requestID: UInt64
    public var url: String
    /// What the caller said, forwarded to the app.
    public var options: CallerOptions
    /// What the broker vouches for (source application, a file it dropped).
    public var facts: BrokerFacts
    /// True when this is the request the app was launched for (its `CheckIn` returned it).
    public var isLaunchRequest: Bool
    /// The caller's deadline (`timeout-ms`); nil when it set none.
    public var timeout: Duration?

    public init(requestID: UInt64, url: String, options: CallerOptions = .init(), facts: BrokerFacts = .init(), isLaunchRequest: Bool, timeout: Duration?) {
        self.requestID = requestID
        self.url = url
        self.options = options
        self.facts = facts
        self.isLaunchRequest = isLaunchRequest
        self.timeout = timeout
    }

    /// The bundle id of the app that asked (`facts`), "" when unknown.
    public var sourceApplication: String { facts.sourceApplication }
}

/// The app's answer to a delivery.
public struct DeliveryAnswer: Sendable {
    public var handled: Bool
    /// The app's reply dictionary, as it sent it.
    public var reply: [String: DBusValue]

    public init(handled: Bool, reply: [String: DBusValue] = [:]) {
        self.handled = handled
        self.reply = reply
    }
}
