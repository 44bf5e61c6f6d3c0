import CourierNames
import CourierManifest
import DBus
import CourierProtocol
import Foundation

/// The declaration of `org.courier.Broker1`: one list drives dispatch, argument checks and the
/// introspection XML. Each method is one function below; another file may add one (DropFiles).
extension BrokerService {
    /// A thrown error as the D-Bus error reply: broker errors keep their `org.courier.Error.*` name.
    static func dbusError(_ error: any Error) -> DBusError {
        if let error = error as? CourierError { return error.dbusError }
        if let error = error as? DBusError { return error }
        return DBusError.failed("\(error)")
    }

    func brokerInterface() -> DBusInterface {
        Broker1.interface.serving([
            openURLMethod(),
            canOpenURLMethod(),
            handlersForURLMethod(),
            explainHandlersForURLMethod(),  // BrokerService+RegistryQueries.swift
            handlersForFileMethod(),
            dumpMethod(),
            setDefaultMethod(),
            checkInMethod(),
            confirmLinkMethod(),
            registerManifestMethod(),  // BrokerService+Registry.swift
            registerManifestWithOptionsMethod(),
            registerManifestFileMethod(),
            unregisterMethod(),
            reloadDefaultsMethod(),
            listApplicationsMethod(),
            getStatusMethod(),
            dropFilesMethod(),  // BrokerService+DropFiles.swift
            openFilesMethod(),
            stageFilesMethod(),
            listProcessesMethod(),  // BrokerService+Lifecycle.swift
            terminateMethod(),
            killMethod(),
            launchMethod(),
            restartMethod(),
            shareActivitiesMethod(),  // BrokerService+Share.swift
        ])
    }

    /// `OpenURL (s url, a{sv} options) → (b handled, s bundle_id, a{sv} reply)`.
    ///
    /// Deferred: the handler submits the request and returns; the app's answer replies to the
    /// caller from the delivery's completion, so no task waits per request.
    func openURLMethod() -> DBusMethod {
        Broker1.openURL.serving { [self] call, reply in
            let ticket: SenderQuota.Ticket
            do throws(CourierError) { ticket = try takeSenderSlot(call, method: Broker1.openURL.name.rawValue) } catch { return reply.fail(error.dbusError) }
            let url: String
            let options: RequestOptions
            do {
                url = try catalog.uri(fromIRI: call.arguments.decode(String.self, at: 0))
                options = try RequestOptions(call.arguments.decode([String: DBusValue].self, at: 1))
            } catch {
                giveBack(ticket)
                return reply.fail(Self.dbusError(error))
            }
            if let target = options.bundleID {
                do throws(CourierError) { try checkClaim(url: url, target: target) } catch {
                    giveBack(ticket)
                    return reply.fail(error.dbusError)
                }
            }
            do throws(CourierError) { try checkShareActivity(options.caller.shareActivity, target: options.bundleID) } catch {
                giveBack(ticket)
                return reply.fail(error.dbusError)
            }
            if options.dryRun {
                let sender = call.sender?.rawValue ?? ""
                Task { [self] in
                    defer { giveBack(ticket) }
                    let app = await queryingApp(sender)
                    let answer = Result { try dryRun(url: url, options: options, asker: app) }
                    // The rule the open would meet (after the query limit: a plain no stays one).
                    if case .success = answer, let target = try? catalog.resolve(url: url, bundleID: options.bundleID),
                       let refusal = await callerRefusal(to: target, url: url, sender: sender, relayed: options.caller.relayed) {
                        return reply.fail(refusal.dbusError)
                    }
                    reply.complete(answer)
                }
                return
            }
            open(url: url, options: options, sender: call.sender?.rawValue ?? "", waits: !call.message.noReplyExpected) { [self] result in
                giveBack(ticket)
                switch result {
                case .success(let outcome):
                    reply.succeed(OpenURLReply(handled: outcome.handled, bundleID: outcome.bundleID, reply: outcome.reply).body)
                case .failure(let error):
                    reply.fail(error.dbusError)
                }
            }
        }
    }

    /// A caller that names the target (`bundle-id`) may only send it a URL of a scheme it claims:
    /// `bundle-id` chooses among the apps that claim a scheme, it does not make an app open
    /// anything. In particular a `file:` URL is not a drop — a file reaches an app's Inbox only
    /// through `DropFiles`, which the broker performs and vouches for.
    func checkClaim(url: String, target: String) throws(CourierError) {
        let scheme = url.prefix(while: { $0 != ":" }).lowercased()
        guard let app = catalog.applications().first(where: { $0.bundleID == target }) else { return }   // NoHandler from routing
        guard !app.schemes.contains(scheme) else { return }
        let drop = scheme == "file" ? "; to give it a file, drop it: courier drop FILE --to \(target) (DropFiles)" : ""
        throw CourierError(.notPermitted, "\(target) does not claim \(scheme): URLs, so it is not sent one (bundle-id picks among the apps that claim a scheme)\(drop)")
    }

    /// Validates and resolves without launching: `(false, bundle_id, {dry-run: true, state: s})`.
    /// An app asking about a scheme it does not list gets what a scheme nobody handles gets.
    private func dryRun(url: String, options: RequestOptions, asker: AppDescriptor?) throws -> [DBusValue] {
        do {
            let scheme = Self.scheme(of: url)
            guard Self.may(asker, askAbout: scheme) else { throw ManifestCatalog.noHandler(scheme: scheme) }
            let app = try catalog.resolve(url: url, bundleID: options.bundleID)
            let state = dispatcher.state(of: app.bundleID)
            return OpenURLReply(handled: false, bundleID: app.bundleID, reply: [String: DBusValue](CourierKey.dryRun(true), CourierKey.state(state.description), CourierKey.launchable(app.launchArguments != nil))).body
        } catch {
            throw Self.dbusError(error)
        }
    }

    /// `CanOpenURL (s url) → (b)`: for an app caller, `false` for a scheme its manifest does not
    /// list in `LSApplicationQueriesSchemes` (BrokerService+Privacy.swift); `false` for a caller the
    /// chosen app's caller rules refuse (BrokerService+CallerRules.swift).
    func canOpenURLMethod() -> DBusMethod {
        Broker1.canOpenURL.serving { [self] call in try await withSenderSlot(call, method: Broker1.canOpenURL.name.rawValue) {
            let iri = try call.arguments.decode(String.self, at: 0)
            do {
                let url = try catalog.uri(fromIRI: iri)
                let handlers = try catalog.handlers(forURL: url)
                let sender = call.sender?.rawValue ?? ""
                guard Self.may(await queryingApp(sender), askAbout: Self.scheme(of: url)) else { return [.boolean(false)] }
                // The chosen app's caller rules: a caller it refuses gets a plain no (BrokerService+CallerRules.swift).
                if !handlers.isEmpty, let chosen = try? catalog.resolve(url: url, bundleID: nil),
                   await callerRefusal(to: chosen, url: url, sender: sender) != nil {
                    return [.boolean(false)]
                }
                return [.boolean(!handlers.isEmpty)]
            } catch {
                throw Self.dbusError(error)
            }
        } }
    }

    // Each method of Broker1 ends in the same catch that turns its error into a D-Bus reply: one
    // line per method, kept beside its handler.
    /// `HandlersForURL (s url) → (as bundle_ids)`, the chosen one first; none for an app caller
    /// asking about a scheme it does not list.
    func handlersForURLMethod() -> DBusMethod {
        Broker1.handlersForURL.serving { [self] call in try await withSenderSlot(call, method: Broker1.handlersForURL.name.rawValue) {
            let iri = try call.arguments.decode(String.self, at: 0)
            do {
                let url = try catalog.uri(fromIRI: iri)
                let handlers = try catalog.handlers(forURL: url)
                guard Self.may(await queryingApp(call.sender?.rawValue ?? ""), askAbout: Self.scheme(of: url)) else { return [.strings([])] }
                return [.strings(handlers)]
            } catch {
                throw Self.dbusError(error)
            }
        } }
    }

    /// `CheckIn (s bundle_id) → (a{sv} launch_options)`: only from the owner of the bundle id's bus
    /// name, and only when that process is the app (`ReceiverGuard.admit`).
    func checkInMethod() -> DBusMethod {
        Broker1.checkIn.serving { [self] call in
            let bundleID = try call.arguments.decode(String.self, at: 0)
            guard let sender = call.sender else { throw CourierError(.notPermitted, "CheckIn needs a bus sender").dbusError }
            let name: BusName
            do throws(CourierError) { name = try ApplicationAddress(bundleID: bundleID).busName } catch { throw error.dbusError }
            let owner = try? await connection.nameOwner(of: name)
            guard owner == sender else {
                throw CourierError(.notPermitted, "\(sender) does not own the bus name \(name) of \(bundleID); an app must own its bundle id's bus name before CheckIn (the Courier library does this)").dbusError
            }
            // An instance adopted at start-up checks in again: it is known, and gets no launch request.
            if receivers.confirmAdoption(sender.rawValue, bundleID: bundleID) { return [.vardict(withLinkAddress(LaunchOptions.none.dbusDictionary))] }
            do {
                // Asked afresh, not cached: an app's connection is not a caller's.
                let pid = (try? await connection.credentials(of: sender))?.processID.map { Int32(bitPattern: $0) }
                let process = try receivers.admit(bundleID: bundleID, uniqueName: sender.rawValue, pid: pid)
                let options = try dispatcher.checkIn(bundleID: bundleID, uniqueName: sender.rawValue, process: process)
                return [.vardict(withLinkAddress(options.dbusDictionary))]
            } catch {
                throw Self.dbusError(error)
            }
        }
    }

    /// `ConfirmLink (s challenge) → ()`: an admitted app hands back, from the bus connection that
    /// checked in, the challenge its direct link received from `Attach` (`AppLinks.confirm`); its
    /// URLs then travel that link.
    func confirmLinkMethod() -> DBusMethod {
        Broker1.confirmLink.serving { [self] call in
            let challenge = try call.arguments.decode(String.self, at: 0)
            guard let links else { throw CourierError(.notPermitted, "this broker runs without direct links (courierd --no-direct-links)").dbusError }
            guard let sender = call.sender else { throw CourierError(.notPermitted, "ConfirmLink needs a bus sender").dbusError }
            do throws(CourierError) { try links.confirm(challenge, from: sender.rawValue) } catch { throw error.dbusError }
            return []
        }
    }

    /// An admitted app's launch options, with where to attach its direct link (`AppLinks`).
    private func withLinkAddress(_ options: [String: DBusValue]) -> [String: DBusValue] {
        guard let links else { return options }
        var options = options
        options[CourierKey.linkAddress] = links.address
        return options
    }

    /// `ReloadDefaults () → (as updated)`: re-read the user's defaults (`defaults.json` in the
    /// broker's state folder) and route by them at once; `courier default` calls it after saving.
    /// It changes nothing a caller could not change by writing that file, so it needs no
    /// authority of its own. Returns the apps whose routing changed (also in `RegistryChanged`).
    func reloadDefaultsMethod() -> DBusMethod {
        Broker1.reloadDefaults.serving { [self] _ in
            [.strings(catalog.reloadDefaults().updated)]
        }
    }

    /// `ListApplications () → (aa{sv})`: bundle-id, name, schemes, launchable, path, state, pid, and
    /// for an app caller only itself and the apps handling schemes it lists (with only those); and
    /// for an app whose bus name an impostor holds: squatted, squatter-pid, squatter-executable.
    func listApplicationsMethod() -> DBusMethod {
        Broker1.listApplications.serving { [self] call in
            let states = Dictionary(uniqueKeysWithValues: dispatcher.statuses().map { ($0.bundleID, $0.state) })
            let squatters = receivers.squatters()
            let asker = await queryingApp(call.sender?.rawValue ?? "")
            let rows: [DBusValue] = catalog.applications().compactMap { listed in
                // An app caller sees itself, and the schemes it may ask about.
                var app = listed
                if let asker, app.bundleID != asker.bundleID {
                    app.schemes = app.schemes.filter { Self.may(asker, askAbout: $0) }
                    if app.schemes.isEmpty { return nil }
                }
                var row: [String: DBusValue] = [String: DBusValue](
                    CourierKey.bundleID(app.bundleID), CourierKey.name(app.name), CourierKey.schemes(app.schemes),
                    CourierKey.launchable(app.launchable), CourierKey.state((states[app.bundleID] ?? .notRunning).description)
                )
                if let path = app.manifestPath { row[CourierKey.path] = path }
                if catalog.isDisabled(app.bundleID) { row[CourierKey.disabled] = true }
                if let pid = states[app.bundleID]?.pid { row[CourierKey.pid] = UInt32(bitPattern: pid) }
                if let squatter = squatters[app.bundleID] {
                    row[CourierKey.squatted] = true
                    if let squatter {
                        row[CourierKey.squatterPID] = UInt32(bitPattern: squatter.pid)
                        row[CourierKey.squatterExecutable] = squatter.executablePath
                    }
                }
                return .vardict(row)
            }
            return [.array(.dictionary(key: .string, value: .variant), rows)]
        }
    }

    /// `GetStatus () → (a{sv})`: pid, started-by, manifest-paths, applications, running, and
    /// registry-changes (the last changes, each with who made it: BrokerService+Registry.swift),
    /// held-change-files and held-change-messages (manifest files held back because they would take
    /// over a running app, and why).
    func getStatusMethod() -> DBusMethod {
        Broker1.getStatus.serving { [self] _ in
            let statuses = dispatcher.statuses()
            let running = statuses.filter { if case .notRunning = $0.state { false } else { true } }.map(\.bundleID)
            let held = ((catalog as? ManifestCatalog)?.service.diagnostics ?? []).filter { $0.code == .heldRegistryChange }
            return [.vardict([String: DBusValue](
                CourierKey.pid(UInt32(ProcessInfo.processInfo.processIdentifier)),
                CourierKey.startedBy(startedBy),
                CourierKey.manifestPaths(catalog.manifestPaths),
                CourierKey.applications(UInt32(catalog.applications().count)),
                CourierKey.running(running),
                CourierKey.uniqueName(connection.uniqueName?.rawValue ?? ""),
                CourierKey.registryChanges(changeLog.withLock { $0 }),
                CourierKey.heldChangeFiles(held.map(\.file)),
                CourierKey.heldChangeMessages(held.map(\.message))
            ))]
        }
    }
}
