public import CourierTools
public import CourierInbox
import Foundation
import CourierNames
import CourierDesktop
import CourierIRI
public import CourierProtocol
import CourierURL
import DBus

/// Delivery through the broker, exactly as `courier drop` does it: `DropFiles` with the staged
/// file's descriptor, so the Inbox's rules hold for network drops too (type check against the
/// app's document types by name and content, sanitised unique names, read-only, atomic, nothing
/// partial), and the app is launched if needed and asked to open the file.
///
/// The app is `bundleID` when the receiver was started with `--to`, else the default app for each
/// file's type (by its name, else its announced MIME type): the broker answers at `prepare-upload`
/// (`HandlersForFile`, one call per file, no registry in this process), where a file no app
/// accepts is refused (403) before any byte is sent. The broker checks again by content when the
/// file arrives, as for any drop: a `.txt` that is a PNG is refused then (403), and nothing of it
/// stays (the unnamed file is never linked).
/// `DropFiles` is asked not to wait for the app (`wait` false): it answers once the file is
/// durably in the Inbox (`fsync`ed, linked, the folder `fsync`ed) and handed to the app, so the
/// sender hears success then, however long the app takes; what the app answers (opened, declined,
/// failed, too slow) the broker logs. What fails the upload is the sender's problem or the
/// receiver's: no app for the type, content that contradicts it (403), the broker busy with earlier
/// files' answers (503), a full disk or an I/O error (500) — nothing of the file stays then.
public struct BrokerDelivery: NearbyDelivery {
    public let client: BrokerToolClient
    public let bundleID: String?

    /// Where the broker's Inboxes are (to find, and make durable, a file the broker placed but whose answer was lost).
    public let inboxes: Inbox?

    public init(client: BrokerToolClient, bundleID: String?, inboxes: Inbox? = nil) {
        self.client = client
        self.bundleID = bundleID
        self.inboxes = inboxes
    }

    /// The name in `folder` of the file `status` describes (its inode), if it is there.
    private static func inboxPath(of status: stat, in folder: String) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.lazy.map { folder + "/" + $0 }.first { path in
            var candidate = stat()
            return lstat(path, &candidate) == 0 && candidate.st_ino == status.st_ino && candidate.st_dev == status.st_dev
        }
    }

    public func target(for file: NearbyFile) async throws(NearbyError) -> String {
        let answer: FileHandlersReply
        do {
            answer = try await client.handlers(forFileNamed: file.fileName, mimeType: file.fileType, bundleID: bundleID)
        } catch where error.code == .noHandler || error.code == .notPermitted {
            throw .rejected(error.message)
        } catch {
            throw NearbyError(500, "cannot ask the broker which app takes \(file.fileName.debugDescription): \(error.message); is courierd running?")
        }
        guard let chosen = answer.bundleIDs.first else {
            throw .rejected("no app on this receiver accepts \(file.fileName.debugDescription) (type \(answer.type), \(answer.typeReason))")
        }
        return chosen
    }

    /// `OpenURL` with no target named, as `courier open` asks: the router picks the scheme's
    /// owner, and the app sees the sender in its annotation as for a file. A link no Courier app
    /// owns goes to the desktop as `courier open` hands it on (`BrowserReading`, then `gio open`,
    /// else `xdg-open`) — for ``desktopSchemes`` only: a peer's `mailto:`, `file:` or `ssh:` link
    /// is not passed to whatever the desktop would run for it. What the router refuses is refused.
    public func open(url: String, from sender: NearbySender) async throws(NearbyError) -> String {
        let result: OpenURLReply
        do {
            result = try await client.open(url, options: OpenRequestOptions(annotation: .vardict([Self.annotationKey: Self.annotation(of: sender)])))
        } catch where error.code == .noHandler {
            return try await Self.handToTheDesktop(url, because: error.message)
        } catch {
            let status = ([.notPermitted, .invalidURL, .declined] as [CourierError.Code]).contains(error.code) ? 403 : 500
            throw NearbyError(status, "the user accepted the link, but the broker did not open it: \(error.message)")
        }
        guard result.handled else { throw .rejected("the user accepted the link, but \(result.bundleID) declined to open it") }
        return result.bundleID
    }

    /// The schemes of links that go to the desktop when no Courier app owns them.
    public static let desktopSchemes: Set<String> = ["http", "https"]

    private static func handToTheDesktop(_ url: String, because reason: String) async throws(NearbyError) -> String {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        guard desktopSchemes.contains(scheme) else {
            throw .rejected("the user accepted the link, but no Courier app opens it (\(reason)), and only \(desktopSchemes.sorted().joined(separator: " and ")) links from a nearby device go to the desktop")
        }
        let uri: String
        do throws(URIError) {
            uri = try BrowserReading.desktopURI(for: url).uri
        } catch {
            throw .rejected("the user accepted the link, but it may not go to the desktop: \(error)")
        }
        // The opener is waited for (gio and xdg-open return once the handler started): off the
        // cooperative pool.
        let outcome = await Task.detached { () -> Result<DesktopHandoff.Result, DesktopIntegrationError> in
            do throws(DesktopIntegrationError) { return .success(try DesktopHandoff().open(uri)) } catch { return .failure(error) }
        }.value
        switch outcome {
        case .success(let handed) where handed.status.succeeded:
            return "the desktop (\(Paths.lastComponent(of: handed.opener)))"
        case .success(let handed):
            throw .rejected("the user accepted the link, but no Courier app opens it and the desktop could not either (\(handed.opener) \(handed.status))")
        case .failure(let error):
            throw .rejected("the user accepted the link, but no Courier app opens it, and \(error)")
        }
    }

    /// The annotation key under which the receiving app finds the sender.
    static let annotationKey = "nearby-device"

    /// Who sent it, as the receiving app sees it (under ``annotationKey`` in its annotation).
    private static func annotation(of sender: NearbySender) -> DBusValue {
        .vardict([
            "alias": .string(sender.alias),
            "fingerprint": .string(sender.fingerprint),
            "fingerprint-verified": .boolean(sender.fingerprintVerified),
            "address": .string(sender.address),
            "admission": .string(sender.admission.rawValue),
        ])
    }

    public func deliver(descriptor: Int32, name: String, to bundleID: String, from sender: NearbySender) async throws(NearbyError) -> NearbyDelivered {
        var before = stat()
        let wasUnnamed = fstat(descriptor, &before) == 0 && before.st_nlink == 0
        let annotation = DBusValue.vardict([Self.annotationKey: Self.annotation(of: sender)])
        do {
            let file = try UnixFD(duplicating: descriptor)
            let options = [String: DBusValue](CourierKey.annotation(annotation), CourierKey.wait(false))
            let values = try await Broker1.call(
                Broker1.dropFiles, on: client.connection,
                [.string(bundleID), .fds([file]), .strings([name]), .vardict(options)],
                timeout: .seconds(3600))
            guard let url = values[0].stringArrayValue?.first else {
                throw NearbyError(500, "the broker answered DropFiles without an Inbox URL")
            }
            return NearbyDelivered(path: url.hasPrefix("file://") ? String(url.dropFirst("file://".count)).removingPercentEncoding ?? url : url)
        } catch let error as NearbyError {
            throw error
        } catch {
            let courier = CourierError(wrapping: error)
            // An unnamed file whose link count is above zero is in the Inbox: the broker linked it
            // and its answer was lost. The receiver makes the name durable itself, so the sender
            // may hear success (a retry would store the file twice).
            var after = stat()
            if wasUnnamed, fstat(descriptor, &after) == 0, after.st_nlink > 0, let inboxes {
                let folder = inboxes.inboxPath(for: bundleID)
                do throws(InboxError) {
                    try inboxes.synchronizeInbox(of: bundleID)
                } catch {
                    throw NearbyError(500, "\(name.debugDescription) is in \(folder) but cannot be made durable there (\(error.message)); the broker said: \(courier.message)")
                }
                return NearbyDelivered(path: Self.inboxPath(of: after, in: folder) ?? folder, unconfirmed: courier.message)
            }
            let status = switch courier.code {
            case .notPermitted, .noHandler: 403
            case .limitsExceeded: 503
            default: 500
            }
            throw NearbyError(status, "the broker did not deliver \(name.debugDescription) to \(bundleID): \(courier.message)")
        }
    }
}
