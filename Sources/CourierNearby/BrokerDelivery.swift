public import Courier
import CourierBrokerRegistry
import CourierManifest
import CourierNames
import CourierProtocol
import DBus

/// Delivery through the broker, exactly as `courier drop` does it: `DropFiles` with the staged
/// file's descriptor, so the Inbox's rules hold for network drops too (type check against the
/// app's document types by name and content, sanitised unique names, read-only, atomic, nothing
/// partial), and the app is launched if needed and asked to open the file.
///
/// The app is `bundleID` when the receiver was started with `--to`, else the default app for each
/// file's type (by its name, else its announced MIME type), read from the broker's registry at
/// `prepare-upload` — where a file no app accepts is refused (403), before any byte is sent.
/// The broker checks again by content when the file arrives: a `.txt` that is a PNG is refused then.
public struct BrokerDelivery: NearbyDelivery {
    public let client: BrokerClient
    public let bundleID: String?

    public init(client: BrokerClient, bundleID: String?) {
        self.client = client
        self.bundleID = bundleID
    }

    public func target(for file: NearbyFile) async throws(NearbyError) -> String {
        let registry: Registry
        do {
            registry = try await BrokerRegistry(client: client).registry().registry
        } catch {
            throw NearbyError(500, "cannot read the broker's registry: \(error.message); is courierd running?")
        }
        let types = registry.types
        let type = types.type(forFileName: file.fileName)
            ?? file.fileType.flatMap { $0.contains("/") ? types.type(forMIMEType: $0) : nil }
            ?? "public.data"
        if let bundleID {
            guard registry.application(bundleIdentifier: bundleID) != nil else {
                throw .rejected("no app \(bundleID) is registered on this receiver")
            }
            guard registry.documentType(of: bundleID, accepting: type) != nil else {
                throw .rejected("\(bundleID) does not accept \(file.fileName.debugDescription) (type \(type)); send files of a type it declares")
            }
            return bundleID
        }
        guard let chosen = registry.handlers(forType: type).chosen else {
            throw .rejected("no app on this receiver accepts \(file.fileName.debugDescription) (type \(type))")
        }
        return chosen.bundleIdentifier
    }

    public func deliver(descriptor: Int32, name: String, to bundleID: String, from sender: NearbySender) async throws(NearbyError) -> String {
        let annotation: [String: DBusValue] = [
            "nearby-device": .vardict([
                "alias": .string(sender.alias),
                "fingerprint": .string(sender.fingerprint),
                "fingerprint-verified": .boolean(sender.fingerprintVerified),
                "address": .string(sender.address),
                "admission": .string(sender.admission.rawValue),
            ]),
        ]
        do {
            let file = try UnixFD(duplicating: descriptor)
            let values = try await Broker1.call(
                Broker1.dropFiles, on: client.connection,
                [.string(bundleID), .fds([file]), .strings([name]), .vardict([String: DBusValue](CourierKey.annotation(.vardict(annotation))))],
                timeout: .seconds(3600))
            guard let url = values[0].stringArrayValue?.first else {
                throw NearbyError(500, "the broker answered DropFiles without an Inbox URL")
            }
            return url.hasPrefix("file://") ? String(url.dropFirst("file://".count)).removingPercentEncoding ?? url : url
        } catch let error as NearbyError {
            throw error
        } catch {
            let courier = CourierError(wrapping: error)
            let status = courier.code == .notPermitted ? 403 : 500
            throw NearbyError(status, "the broker did not deliver \(name.debugDescription) to \(bundleID): \(courier.message)")
        }
    }
}
