import DBus
import CourierProtocol

/// After a restart the broker knows no running app, but instances it launched earlier (or that
/// were started by hand) may still own their bus names. Before it takes `org.courier.Broker` — so
/// before the first request can reach it, bus activation included — the broker asks the bus who
/// owns each registered app's name and adopts every owner that passes the same receiver check as a
/// `CheckIn` (the executable its manifest launches: its own children are gone with the old
/// broker). An owner that fails is an impostor: reported, and its app's opens fail with
/// `NameSquatted`. The app library checks in again when `org.courier.Broker` gets a new owner; for
/// an adopted instance that `CheckIn` is answered with empty launch options. An adopted instance is
/// held by its `ProcessHandle`, so it is quit, reclaimed by the policies and listed by `courier ps`
/// like one the broker launched.
extension BrokerService {
    func adoptRunningApps() async {
        let names: [String]
        do {
            let reply = try await connection.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "ListNames", [])
            names = reply.first?.stringArrayValue ?? []
        } catch {
            logger.warning("cannot list the bus names to adopt running apps (\(error)); apps already running check in again by themselves")
            return
        }
        for busName in names where !busName.hasPrefix(":") {
            // An app's bus name need not be its bundle id (`BundleIdentifier`).
            let name = ApplicationAddress.bundleID(ofBusName: busName) { catalog.applications().map(\.bundleID) }
            guard let descriptor = catalog.descriptor(bundleID: name), !descriptor.dbusActivatable,
                  let address = try? ApplicationAddress(bundleID: name), let owner = (try? await connection.nameOwner(of: address.busName)) ?? nil else { continue }
            let pid = (try? await connection.credentials(of: owner))?.processID.map { Int32(bitPattern: $0) }
            do {
                let process = try receivers.admit(bundleID: name, uniqueName: owner.rawValue, pid: pid, adopting: true)
                _ = try dispatcher.checkIn(bundleID: name, uniqueName: owner.rawValue, process: process)
                logger.info("adopted \(name): still running as \(owner.rawValue) (pid \(pid.map(String.init) ?? "?"))")
            } catch {
                continue   // an impostor: ReceiverGuard reported it, and its app's opens name it
            }
        }
    }
}
