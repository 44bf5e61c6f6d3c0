import DBus
import Foundation

/// The declaration of `org.courier.Broker1`: one list drives dispatch, argument checks and the
/// introspection XML. Each method is one function below; another file may add one (DropFiles).
extension BrokerService {
    /// A thrown error as the D-Bus error reply: broker errors keep their `org.courier.Error.*` name.
    static func dbusError(_ error: any Error) -> DBusError {
        if let error = error as? BrokerError { return error.dbusError }
        if let error = error as? DBusError { return error }
        return DBusError.failed("\(error)")
    }

    func brokerInterface() -> DBusInterface {
        DBusInterface(
            BrokerNames.interface,
            methods: [
                openURLMethod(),
                canOpenURLMethod(),
                handlersForURLMethod(),
                checkInMethod(),
                registerManifestMethod(),
                unregisterMethod(),
                reloadDefaultsMethod(),
                listApplicationsMethod(),
                getStatusMethod(),
                dropFilesMethod(),  // BrokerService+DropFiles.swift
                openFilesMethod(),
                listProcessesMethod(),  // BrokerService+Lifecycle.swift
                terminateMethod(),
            ],
            signals: [
                DBusSignal("RegistryChanged", arguments: "asasas", argumentNames: ["added", "removed", "updated"]),
                Self.dropProgressSignal,
                Self.stateChangedSignal,
            ]
        )
    }

    /// `OpenURL (s url, a{sv} options) → (b handled, s bundle_id, a{sv} reply)`.
    ///
    /// Deferred: the handler submits the request and returns; the app's answer replies to the
    /// caller from the delivery's completion, so no task waits per request.
    func openURLMethod() -> DBusMethod {
        DBusMethod(
            "OpenURL", arguments: "sa{sv}", results: "bsa{sv}",
            argumentNames: ["url", "options"], resultNames: ["handled", "bundle_id", "reply"]
        ) { [self] call, reply in
            let ticket: SenderQuota.Ticket
            do throws(BrokerError) { ticket = try takeSenderSlot(call, method: "OpenURL") } catch { return reply.fail(error.dbusError) }
            let url = call.arguments[0].stringValue ?? ""
            let options = call.arguments[1].vardictValue ?? [:]
            if options["dry-run"]?.boolValue == true {
                defer { giveBack(ticket) }
                return reply.complete(Result { try dryRun(url: url, options: options) })
            }
            open(url: url, options: options, sender: call.sender?.rawValue ?? "") { [self] result in
                giveBack(ticket)
                switch result {
                case .success(let outcome):
                    var values: [String: DBusValue] = [:]
                    for (key, value) in outcome.reply { if let value = value as? DBusValue { values[key] = value } }
                    reply.succeed([.boolean(outcome.handled), .string(outcome.bundleID), .vardict(values)])
                case .failure(let error):
                    reply.fail(error.dbusError)
                }
            }
        }
    }

    /// Validates and resolves without launching: `(false, bundle_id, {dry-run: true, state: s})`.
    private func dryRun(url: String, options: [String: DBusValue]) throws -> [DBusValue] {
        let bundleID = options["bundle-id"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        do {
            let app = try catalog.resolve(url: url, bundleID: bundleID)
            let state = dispatcher.state(of: app.bundleID)
            return [.boolean(false), .string(app.bundleID), .vardict(["dry-run": .boolean(true), "state": .string(state.description), "launchable": .boolean(app.launchArguments != nil)])]
        } catch {
            throw Self.dbusError(error)
        }
    }

    /// Apps may only ask about the schemes listed in their `LSApplicationQueriesSchemes`.
    private func checkQueryAllowed(url: String, sender: String) async throws(BrokerError) {
        let source = await sourceApplication(of: sender)
        guard !source.isEmpty, let app = catalog.descriptor(bundleID: source) else { return }
        let scheme = url.prefix(while: { $0 != ":" }).lowercased()
        guard app.queriesSchemes.contains(scheme) else {
            throw BrokerError(.notPermitted, "\(source) may not ask which apps handle '\(scheme)': list the scheme in LSApplicationQueriesSchemes in its manifest")
        }
    }

    /// `CanOpenURL (s url) → (b)`.
    func canOpenURLMethod() -> DBusMethod {
        DBusMethod("CanOpenURL", arguments: "s", results: "b", argumentNames: ["url"], resultNames: ["can_open"]) { [self] call in try await withSenderSlot(call, method: "CanOpenURL") {
            let url = call.arguments[0].stringValue ?? ""
            do {
                try await checkQueryAllowed(url: url, sender: call.sender?.rawValue ?? "")
                return [.boolean(!(try catalog.handlers(forURL: url)).isEmpty)]
            } catch {
                throw Self.dbusError(error)
            }
        } }
    }

    /// `HandlersForURL (s url) → (as bundle_ids)`, the chosen one first.
    func handlersForURLMethod() -> DBusMethod {
        DBusMethod("HandlersForURL", arguments: "s", results: "as", argumentNames: ["url"], resultNames: ["bundle_ids"]) { [self] call in try await withSenderSlot(call, method: "HandlersForURL") {
            let url = call.arguments[0].stringValue ?? ""
            do {
                try await checkQueryAllowed(url: url, sender: call.sender?.rawValue ?? "")
                return [.strings(try catalog.handlers(forURL: url))]
            } catch {
                throw Self.dbusError(error)
            }
        } }
    }

    /// `CheckIn (s bundle_id) → (a{sv} launch_options)`: only from the owner of the bundle id's bus name.
    func checkInMethod() -> DBusMethod {
        DBusMethod("CheckIn", arguments: "s", results: "a{sv}", argumentNames: ["bundle_id"], resultNames: ["launch_options"]) { [self] call in
            let bundleID = call.arguments[0].stringValue ?? ""
            guard let sender = call.sender else { throw BrokerError(.notPermitted, "CheckIn needs a bus sender").dbusError }
            let name: BusName
            do throws(BrokerError) { name = try BrokerNames.application(bundleID).name } catch { throw error.dbusError }
            let owner = try? await connection.nameOwner(of: name)
            guard owner == sender else {
                throw BrokerError(.notPermitted, "\(sender) does not own the bus name \(name) of \(bundleID); an app must own its bundle id's bus name before CheckIn (the Courier library does this)").dbusError
            }
            do {
                let options = try dispatcher.checkIn(bundleID: bundleID, uniqueName: sender.rawValue)
                var dictionary: [String: DBusValue] = [:]
                if let url = options.url { dictionary["url"] = .string(url) }
                dictionary["source-application"] = .string(options.sourceApplication)
                if let id = options.requestID { dictionary["request-id"] = .uint64(id) }
                for (key, value) in options.appOptions { if let value = value as? DBusValue { dictionary[key] = value } }
                if let archive = options.restorationArchive { dictionary["restoration-archive"] = .bytes(archive) }
                return [.vardict(dictionary)]
            } catch {
                throw Self.dbusError(error)
            }
        }
    }

    /// `RegisterManifest (s path) → (s bundle_id)`.
    func registerManifestMethod() -> DBusMethod {
        DBusMethod("RegisterManifest", arguments: "s", results: "s", argumentNames: ["path"], resultNames: ["bundle_id"]) { [self] call in
            let path = call.arguments[0].stringValue ?? ""
            do {
                return [.string(try await catalog.register(manifestAt: path))]
            } catch {
                throw Self.dbusError(error)
            }
        }
    }

    /// `Unregister (s bundle_id) → ()`.
    func unregisterMethod() -> DBusMethod {
        DBusMethod("Unregister", arguments: "s", argumentNames: ["bundle_id"]) { [self] call in
            do {
                _ = try await catalog.unregister(bundleID: call.arguments[0].stringValue ?? "")
                return []
            } catch {
                throw Self.dbusError(error)
            }
        }
    }

    /// `ReloadDefaults () → (as updated)`: re-read the user's defaults (`defaults.json` in the
    /// broker's state folder) and route by them at once; `courier default` calls it after saving.
    /// It changes nothing a caller could not change by writing that file, so it needs no
    /// authority of its own. Returns the apps whose routing changed (also in `RegistryChanged`).
    func reloadDefaultsMethod() -> DBusMethod {
        DBusMethod("ReloadDefaults", results: "as", resultNames: ["updated"]) { [self] _ in
            [.strings(catalog.reloadDefaults().updated)]
        }
    }

    /// `ListApplications () → (aa{sv})`: bundle-id, name, schemes, launchable, path, state, pid.
    func listApplicationsMethod() -> DBusMethod {
        DBusMethod("ListApplications", results: "aa{sv}", resultNames: ["applications"]) { [self] _ in
            let states = Dictionary(uniqueKeysWithValues: dispatcher.statuses().map { ($0.bundleID, $0.state) })
            let rows: [DBusValue] = catalog.applications().map { app in
                var row: [String: DBusValue] = [
                    "bundle-id": .string(app.bundleID), "name": .string(app.name), "schemes": .strings(app.schemes),
                    "launchable": .boolean(app.launchable), "state": .string((states[app.bundleID] ?? .notRunning).description),
                ]
                if let path = app.manifestPath { row["path"] = .string(path) }
                if let pid = states[app.bundleID]?.pid { row["pid"] = .uint32(UInt32(bitPattern: pid)) }
                return .vardict(row)
            }
            return [.array(.dictionary(key: .string, value: .variant), rows)]
        }
    }

    /// `GetStatus () → (a{sv})`: pid, started-by, manifest-paths, applications, running.
    func getStatusMethod() -> DBusMethod {
        DBusMethod("GetStatus", results: "a{sv}", resultNames: ["status"]) { [self] _ in
            let statuses = dispatcher.statuses()
            let running = statuses.filter { if case .notRunning = $0.state { false } else { true } }.map(\.bundleID)
            return [.vardict([
                "pid": .uint32(UInt32(ProcessInfo.processInfo.processIdentifier)),
                "started-by": .string(startedBy),
                "manifest-paths": .strings(catalog.manifestPaths),
                "applications": .uint32(UInt32(catalog.applications().count)),
                "running": .strings(running),
                "unique-name": .string(connection.uniqueName?.rawValue ?? ""),
            ])]
        }
    }
}
