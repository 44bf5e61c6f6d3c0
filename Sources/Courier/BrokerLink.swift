import DBus
import CourierProtocol
#if canImport(Glibc)
import Glibc
#endif

/// The app's end of its direct link to the broker (the broker's `AppLinks`): a peer-to-peer D-Bus
/// connection over which the broker delivers `OpenURL` without the bus in between.
///
/// Security: the app connects only to the address the broker gave in `CheckIn`'s answer, and keeps
/// the link only if the kernel says the process listening there (`SO_PEERCRED`) is the process that
/// owns `org.courier.Broker` on the bus, of the app's own user. Calls arriving on the link then come
/// from the broker, as surely as a bus call whose sender is the broker's unique name. The broker, in
/// turn, binds the link to this app only when the challenge it sent over the link comes back over
/// the bus from the app's own unique name (`ConfirmLink`). Anything else
/// — a refused check, a failed `Attach`, a lost link — leaves the app on the bus, where every
/// delivery still arrives.
struct BrokerLink: Sendable {
    let connection: DBusConnection

    /// Why a link was not made (the app then carries on over the bus).
    struct Refusal: Error, Sendable {
        let reason: String
    }

    /// Connects to `address`, checks that `brokerPID` listens there, serves `interfaces` at `path`
    /// on the link and attaches it as `bundleID`: `Attach` over the link answers a challenge,
    /// which `bus` — the connection that checked in — hands back to `broker` (`ConfirmLink`).
    static func attach(
        to address: String, brokerPID: UInt32, bundleID: String, serving interfaces: [DBusInterface], at path: ObjectPath,
        confirmingOn bus: DBusConnection, to broker: BusName
    ) async throws(Refusal) -> BrokerLink {
        let connection: DBusConnection
        do {
            connection = try DBusConnection(address: address, registerOnBus: false)
        } catch {
            throw Refusal(reason: "cannot connect to \(address): \(error.message)")
        }
        let server = connection.peerCredentials
        guard let server, server.processID == brokerPID, server.userID == getuid() else {
            connection.close()
            let who = server?.processID.map { "pid \($0)" } ?? "an unknown process"
            throw Refusal(reason: "\(address) is served by \(who), not by the broker (pid \(brokerPID))")
        }
        do {
            try connection.export(interfaces, at: path)
            let answer = try await BrokerLink1.attach.call(on: connection, nil, path: Broker1.objectPath, [.string(bundleID)])
            let challenge = answer[0].stringValue ?? ""
            _ = try await Broker1.confirmLink.call(on: bus, broker, path: Broker1.objectPath, [.string(challenge)])
        } catch {
            connection.close()
            throw Refusal(reason: "the broker did not attach the link: \(error)")
        }
        return BrokerLink(connection: connection)
    }

    func close() { connection.close() }
}
