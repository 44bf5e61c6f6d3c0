import Courier
import CourierBrokerRegistry

extension BrokerRegistry {
    /// The running broker, or nil after the note on standard error (no session bus, or nobody
    /// owns `org.courier.Broker`).
    static func running(command: String) async -> BrokerRegistry? {
        if let client = try? BrokerClient.session(), await client.brokerIsRunning() {
            return BrokerRegistry(client: client)
        }
        reportRegistryError("courier \(command): no broker is running; answering from the manifest folders on disk")
        return nil
    }
}
