import CourierInbox
import CourierManifest
import CourierNames
import CourierTypes
import DBus
import CourierProtocol

/// What tools ask of the broker's registry — the one registry there is: which apps take a file
/// (`HandlersForFile`), the whole registry (`Dump`) and the user's defaults (`SetDefault`). No
/// client rebuilds the registry from the manifest files: what it prints is what the broker routes by.
extension BrokerService {
    /// `ExplainHandlersForURL (s url) → (as bundle_ids, a{sv} details)` (Broker1.explainHandlersForURL):
    /// what `HandlersForURL` answers, the same for an app caller, with the reasons.
    func explainHandlersForURLMethod() -> DBusMethod {
        Broker1.explainHandlersForURL.serving { [self] call in try await withSenderSlot(call, method: Broker1.explainHandlersForURL.name.rawValue) {
            let iri = try call.arguments.decode(String.self, at: 0)
            do throws(CourierError) {
                let url = try catalog.uri(fromIRI: iri)
                let scheme = Self.scheme(of: url)
                let resolution = catalog.registry.handlers(forScheme: scheme)
                guard Self.may(await queryingApp(call.sender?.rawValue ?? ""), askAbout: scheme) else {
                    return URLHandlersReply(bundleIDs: [], explanation: "", advice: nil).body
                }
                let advice = resolution.chosen == nil ? catalog.registry.noHandlerAdvice(forScheme: scheme) : nil
                return URLHandlersReply(bundleIDs: try catalog.handlers(forURL: url), explanation: resolution.explanationText, advice: advice).body
            } catch {
                throw error.dbusError
            }
        } }
    }

    /// `HandlersForFile (s name, ah file, a{sv} options) → (s type, as bundle_ids, a{sv} details)`
    /// (Broker1.handlersForFile): the file's type as a drop of it would get it, and the apps that
    /// take it. The descriptor, when given, is read (never reopened by path) and closed.
    func handlersForFileMethod() -> DBusMethod {
        Broker1.handlersForFile.serving { [self] call in try await withSenderSlot(call, method: Broker1.handlersForFile.name.rawValue) {
            let descriptors = (try? call.arguments.decode([UnixFD].self, at: 1)) ?? []
            defer { descriptors.forEach { $0.close() } }
            do throws(CourierError) {
                let name: String
                let options: [String: DBusValue]
                do {
                    name = try call.arguments.decode(String.self, at: 0)
                    options = try call.arguments.decode([String: DBusValue].self, at: 2)
                } catch {
                    throw CourierError(.invalidArguments, "\(Broker1.handlersForFile.name.rawValue): \(error)")
                }
                guard descriptors.count <= 1 else {
                    throw CourierError(.invalidArguments, "\(Broker1.handlersForFile.name.rawValue) takes at most one file, not \(descriptors.count)")
                }
                let registry = catalog.registry
                let target = try options.decode(CourierKey.bundleID)
                // Every option is decoded, used or not: one of the wrong type is refused, never ignored.
                let (asked, announced) = (try options.decode(CourierKey.type), try options.decode(CourierKey.mimeType))
                guard let answer = try registry.fileHandlers(name: name.isEmpty && descriptors.isEmpty ? "" : InboxFileName(suggested: name).name, descriptor: descriptors.first?.rawValue,
                                                             type: asked, announcedMIMEType: announced) else {
                    throw CourierError(.invalidArguments, "give a file name, a file, the option '\(CourierKey.type)' or the option '\(CourierKey.mimeType)'")
                }
                var reply = FileHandlersReply(type: answer.type, bundleIDs: answer.resolution.bundleIdentifiers, typeReason: answer.reason,
                                              explanation: answer.resolution.explanationText, mimeType: answer.mimeType, matchedTypes: answer.matchedTypes)
                if let bundleID = target {
                    guard registry.application(bundleIdentifier: bundleID) != nil else {
                        throw CourierError(.noHandler, "no app \(bundleID) is registered; register its manifest (courier register)")
                    }
                    guard let document = registry.documentType(of: bundleID, accepting: answer.type) else {
                        let label = name.isEmpty ? "files of type \(answer.type)" : "\(name.debugDescription) (type \(answer.type), \(answer.reason))"
                        throw CourierError(.notPermitted, "\(bundleID) does not accept \(label); it declares no document type this conforms to")
                    }
                    reply.bundleIDs = [bundleID]
                    reply.matchedTypes = [bundleID: reply.matchedTypes[bundleID] ?? document.contentTypes.first { registry.types.conforms(answer.type, to: $0) } ?? ""]
                }
                return reply.body
            } catch {
                throw error.dbusError
            }
        } }
    }

    /// `Dump (a{sv} options) → (s dump)` (Broker1.dump): `RegistryDump` of the broker's registry, with
    /// the names impostors hold among its diagnostics.
    func dumpMethod() -> DBusMethod {
        Broker1.dump.serving { [self] call in
            do throws(CourierError) {
                let options: [String: DBusValue]
                do { options = try call.arguments.decode([String: DBusValue].self, at: 0) } catch {
                    throw CourierError(.invalidArguments, "\(Broker1.dump.name.rawValue): \(error)")
                }
                try await refuseApps(call, Broker1.dump)
                let squats = receivers.squatters().sorted { $0.key < $1.key }.map { bundleID, squatter in
                    let who = squatter.map { "pid \($0.pid) (\($0.executablePath))" } ?? "an unidentified process"
                    return ManifestDiagnostic(file: catalog.registry.application(bundleIdentifier: bundleID)?.path ?? bundleID, keyPath: "CFBundleIdentifier",
                                              message: "\(bundleID) — squatted by \(who): its bus name is taken, nothing is delivered to it; stop that process",
                                              severity: .warning, code: .init(rawValue: "name-squatted"))
                }
                let dump = catalog.dump(extraDiagnostics: squats)
                return [.string(try options.decode(CourierKey.json) == true ? dump.json() : dump.description)]
            } catch {
                throw error.dbusError
            }
        }
    }

    /// `SetDefault (s key, s bundle_id, a{sv} options) → (s key, s previous, s chosen)` (Broker1.setDefault).
    func setDefaultMethod() -> DBusMethod {
        Broker1.setDefault.serving { [self] call in
            do throws(CourierError) {
                let key: String
                let bundleID: String
                let options: [String: DBusValue]
                do {
                    key = try call.arguments.decode(String.self, at: 0)
                    bundleID = try call.arguments.decode(String.self, at: 1)
                    options = try call.arguments.decode([String: DBusValue].self, at: 2)
                } catch {
                    throw CourierError(.invalidArguments, "\(Broker1.setDefault.name.rawValue): \(error)")
                }
                try await refuseApps(call, Broker1.setDefault)
                let answer = try catalog.setDefault(bundleID.isEmpty ? nil : bundleID, for: key, isType: try options.decode(CourierKey.forType) ?? false)
                return DefaultChangeReply(key: answer.key, previous: answer.previous, chosen: answer.chosen).body
            } catch {
                throw error.dbusError
            }
        }
    }

    /// An app is answered by `ListApplications`, `HandlersForURL` and the like, which show it only
    /// what it may ask about; the tools' methods that show or change everything refuse it.
    private func refuseApps(_ call: MethodCall, _ method: ProtocolMethod) async throws(CourierError) {
        if let app = await queryingApp(call.sender?.rawValue ?? "") {
            throw CourierError(.notPermitted, "\(method.name.rawValue) is for the user's tools, not for apps (\(app.bundleID) asked)")
        }
    }
}
