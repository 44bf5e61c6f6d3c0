public import DBus
public import CourierNames

/// The desktop portal (`xdg-desktop-portal`, served as `org.freedesktop.portal.Desktop` at
/// `/org/freedesktop/portal/desktop`): the parts the share sheet uses. It has no share sheet of its
/// own; its `FileChooser` asks the person for the folder "Save to…" writes into, with the desktop's
/// own dialog, through the portal's request pattern (`Request`, `Response`).
public enum FreedesktopPortal {
    public static let busName: BusName = "org.freedesktop.portal.Desktop"
    public static let objectPath: ObjectPath = "/org/freedesktop/portal/desktop"
    public static let fileChooserName: InterfaceName = "org.freedesktop.portal.FileChooser"
    public static let requestName: InterfaceName = "org.freedesktop.portal.Request"

    /// `(s parent_window, s title, a{sv} options) → (o handle)`: the answer comes later, as the
    /// `Response` of the request at `handle`.
    public static let openFile = ProtocolMethod(
        fileChooserName, "OpenFile", arguments: "ssa{sv}", results: "o",
        argumentNames: ["parent_window", "title", "options"], resultNames: ["handle"])
    public static let fileChooser = ProtocolInterface(fileChooserName, methods: [openFile])

    /// `() → ()`: ends a request the person has not answered (the dialog goes away).
    public static let close = ProtocolMethod(requestName, "Close")
    /// `(u response, a{sv} results)`: the end of a request.
    public static let response = ProtocolSignal(requestName, "Response", arguments: "ua{sv}", argumentNames: ["response", "results"])
    public static let request = ProtocolInterface(requestName, methods: [close], signals: [response])

    /// `org.freedesktop.DBus.Properties.Get (s interface, s property) → (v value)`, for the
    /// file chooser's `version`.
    static let getProperty = ProtocolMethod("org.freedesktop.DBus.Properties", "Get", arguments: "ss", results: "v",
                                            argumentNames: ["interface_name", "property_name"], resultNames: ["value"])
    /// The bus itself, for `ListActivatableNames` and `StartServiceByName`.
    static let busPath: ObjectPath = "/org/freedesktop/DBus"
    static let busInterface: InterfaceName = "org.freedesktop.DBus"
    /// The property holding an interface's version.
    public static let versionProperty = "version"
    /// The first `FileChooser` version whose `OpenFile` chooses folders (`directory`).
    public static let directoryVersion: UInt32 = 3

    /// The `OpenFile` options and results Courier uses.
    public enum Key {
        /// `s`: the last element of the request's object path, chosen by the caller.
        public static let handleToken = "handle_token"
        /// `s`: the label of the dialog's accept button.
        public static let acceptLabel = "accept_label"
        /// `b`: whether the dialog is modal.
        public static let modal = "modal"
        /// `b`: choose folders, not files (version 3).
        public static let directory = "directory"
        /// `as` in the results: the `file://` URIs chosen.
        public static let uris = "uris"
    }

    /// `Response`'s first argument.
    public enum ResponseCode {
        /// The person chose.
        public static let success: UInt32 = 0
        /// The person cancelled the dialog.
        public static let cancelled: UInt32 = 1
        /// The interaction ended some other way (the backend failed, the request was closed).
        public static let ended: UInt32 = 2
    }

    /// The path the portal gives a request made by `sender` with `token` (the specification's
    /// `/org/freedesktop/portal/desktop/request/SENDER/TOKEN`, SENDER the unique name without its
    /// `:` and with `_` for each `.`), so the caller can listen for `Response` before asking.
    public static func requestPath(sender: BusName, token: String) -> ObjectPath? {
        let element = String(sender.rawValue.drop(while: { $0 == ":" }).map { $0 == "." ? "_" : $0 })
        return try? ObjectPath("\(objectPath.rawValue)/request/\(element)/\(token)")
    }
}

/// The client side of the portal's `FileChooser` on one connection, talking to the portal that
/// owns `org.freedesktop.portal.Desktop` when asked, by its unique name: only that name's
/// `Response`, at the path of this request, is believed — any process of the user on the bus can
/// emit a `Response` from the same path and interface.
public struct DesktopPortalFileChooser: Sendable {
    public let connection: DBusConnection
    /// The portal's unique name.
    public let portal: BusName
    /// The `FileChooser` version the portal serves.
    public let version: UInt32

    typealias P = FreedesktopPortal

    /// The portal's file chooser on `connection`'s bus, when a portal runs there (or can be started
    /// by the bus) and serves a `FileChooser` that chooses folders; nil otherwise. Each step is
    /// bounded by `timeout`: a portal that hangs counts as none.
    public static func onBus(_ connection: DBusConnection, timeout: Duration = .seconds(10)) async -> DesktopPortalFileChooser? {
        var owner = (try? await connection.nameOwner(of: P.busName)) ?? nil
        if owner == nil, await activatable(on: connection, timeout: timeout) {
            _ = try? await connection.call(.bus, path: P.busPath, interface: P.busInterface, method: "StartServiceByName",
                                           [.string(P.busName.rawValue), .uint32(0)], timeout: timeout)
            owner = (try? await connection.nameOwner(of: P.busName)) ?? nil
        }
        guard let owner,
              let value = try? await P.getProperty.call(on: connection, owner, path: P.objectPath,
                                                        [.string(P.fileChooserName.rawValue), .string(P.versionProperty)], timeout: timeout),
              let version = value.first?.uint32Value, version >= P.directoryVersion
        else { return nil }
        return DesktopPortalFileChooser(connection: connection, portal: owner, version: version)
    }

    /// Whether the bus can start the portal (`ListActivatableNames`), so a session whose portal
    /// has not been needed yet is not taken for one without a portal.
    static func activatable(on connection: DBusConnection, timeout: Duration) async -> Bool {
        let names = try? await connection.call(.bus, path: P.busPath, interface: P.busInterface, method: "ListActivatableNames", timeout: timeout)
        return names?.first?.stringArrayValue?.contains(P.busName.rawValue) ?? false
    }

    public init(connection: DBusConnection, portal: BusName, version: UInt32) {
        self.connection = connection
        self.portal = portal
        self.version = version
    }

    /// What a request ended with.
    public enum Outcome: Sendable, Equatable {
        /// The person chose: the `file://` URIs (`uris`).
        case chosen([String])
        /// The person cancelled the dialog (response 1).
        case cancelled
        /// The interaction ended otherwise (response 2, or an unknown code).
        case ended(UInt32)
        /// No answer within the time allowed; the request was closed.
        case timedOut
        /// The portal left the bus before answering.
        case portalLeft
        /// The asking task was cancelled; the request was closed.
        case abandoned
    }

    /// Asks the person for one folder with the desktop's dialog (`OpenFile` with `directory`),
    /// waiting up to `timeout` for the answer. A request not answered in time, or whose task is
    /// cancelled, is closed (`Request.Close`: the dialog goes away).
    public func chooseFolder(title: String, acceptLabel: String, timeout: Duration) async throws(CourierError) -> Outcome {
        guard let sender = connection.uniqueName else { throw CourierError(.bus, "this connection has no unique name, so it cannot make a portal request") }
        let token = "courier" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        guard let expected = P.requestPath(sender: sender, token: token) else {
            throw CourierError(.bus, "cannot make the portal request path for \(sender)")
        }
        let responses: AsyncStream<DBusMessage>
        let gone: AsyncStream<NameOwnerChange>
        do {
            // Subscribed before asking, so a quick answer is not missed.
            gone = try await connection.nameOwnerChanges(for: P.busName)
            responses = try await connection.signals(matching: MatchRule(sender: portal, path: expected, interface: P.requestName, member: P.response.name))
        } catch {
            throw CourierError(wrapping: error)
        }
        let options: [String: DBusValue] = [
            P.Key.handleToken: .string(token), P.Key.directory: .boolean(true), P.Key.modal: .boolean(true),
            P.Key.acceptLabel: .string(acceptLabel),
        ]
        let reply = try await P.openFile.call(on: connection, portal, path: P.objectPath, [.string(""), .string(title), .vardict(options)])
        guard let handle = reply.first?.objectPathValue else { throw CourierError(.bus, "the desktop portal answered OpenFile without a request handle") }
        // A portal older than handle_token answers at another path: listen there (what it
        // said before this line was lost; the specification accepts that for such portals).
        var other: AsyncStream<DBusMessage>?
        if handle != expected {
            do {
                other = try await connection.signals(matching: MatchRule(sender: portal, path: handle, interface: P.requestName, member: P.response.name))
            } catch {
                throw CourierError(wrapping: error)
            }
        }
        let portal = portal
        let outcome: Outcome = await withTaskGroup(of: Outcome?.self) { group in
            for stream in [responses, other].compactMap({ $0 }) {
                group.addTask {
                    for await signal in stream where P.response.matches(signal.body) {
                        let code = signal.body[0].uint32Value ?? P.ResponseCode.ended
                        switch code {
                        case P.ResponseCode.success: return .chosen(signal.body[1].vardictValue?[P.Key.uris]?.stringArrayValue ?? [])
                        case P.ResponseCode.cancelled: return .cancelled
                        default: return .ended(code)
                        }
                    }
                    return nil
                }
            }
            group.addTask {
                for await change in gone where change.oldOwner == portal { return .portalLeft }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : .timedOut
            }
            var first: Outcome?
            while first == nil, let next = await group.next() { first = next }
            group.cancelAll()
            return first ?? (Task.isCancelled ? .abandoned : .portalLeft)
        }
        if outcome == .timedOut || outcome == .abandoned {
            // In a task of its own: a cancelled task's calls end before they are sent.
            let connection = connection
            await Task { _ = try? await P.close.call(on: connection, portal, path: handle, timeout: .seconds(5)) }.value
        }
        return outcome
    }
}
