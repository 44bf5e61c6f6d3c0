import CourierNames
import CourierTools

extension RegistryQueries {
    /// The running broker's registry, or nil after the note on standard error (no session bus, or
    /// nobody owns `org.courier.Broker`): the command then answers from the manifest folders on disk.
    static func running(command: String) async -> RegistryQueries? {
        if let client = try? BrokerToolClient.session(), await client.brokerIsRunning() {
            return RegistryQueries(client: client)
        }
        reportRegistryError("courier \(command): no broker is running; answering from the manifest folders on disk")
        return nil
    }
}
