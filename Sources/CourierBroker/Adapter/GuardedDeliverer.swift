import CourierNames

/// The deliverer the broker's dispatcher uses: the bus one, after the receiver check.
///
/// A request goes only to a unique name admitted at `CheckIn` as that very app, and only while
/// that admission still holds (`ReceiverGuard.refusal(for:)`); otherwise it fails with
/// `NotPermitted` and nothing is sent.
struct GuardedDeliverer: Deliverer {
    let base: any Deliverer
    let receivers: ReceiverGuard

    func deliver(_ delivery: Delivery, to endpoint: AppEndpoint) async throws(CourierError) -> DeliveryAnswer {
        if let refusal = receivers.refusal(for: endpoint) { throw refusal }
        return try await base.deliver(delivery, to: endpoint)
    }

    func deliver(_ delivery: Delivery, to endpoint: AppEndpoint, completion: @escaping @Sendable (Result<DeliveryAnswer, CourierError>) -> Void) {
        if let refusal = receivers.refusal(for: endpoint) { return completion(.failure(refusal)) }
        base.deliver(delivery, to: endpoint, completion: completion)
    }

    /// The termination notice carries nothing of the user's: it goes to the app as it is.
    func notifyTermination(_ endpoint: AppEndpoint, deadline: Duration, completion: @escaping @Sendable (Result<Void, CourierError>) -> Void) {
        base.notifyTermination(endpoint, deadline: deadline, completion: completion)
    }
}
