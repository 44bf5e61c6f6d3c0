import CourierProtocol
import Foundation
import Testing

/// One fact, one home: the protocol's member names, option keys and bus names are spelled in
/// `Sources/CourierProtocol` (and the static front's few in `Sources/CourierNames/CourierBusNames.swift`)
/// and nowhere else in `Sources/`. Tests, Python peers and docs keep their literal spellings: they
/// check the declaration from outside.
struct ProtocolSpellingTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let homes = ["Sources/CourierProtocol/", "Sources/CourierNames/CourierBusNames.swift",
                        // A test's Python peer (a notification server), checking the declaration from outside.
                        "Sources/BusTestSupport/TestNotificationServer.swift"]

    /// Every spelling the declaration owns, quoted as Swift spells a literal. One-word option keys
    /// (`name`, `path`, `state`, `pid`, …) are common words elsewhere (JSON output, file names), so
    /// only the keys no other vocabulary uses — those with a `-` or in camel case — are searched.
    static var spellings: Set<String> {
        let interfaces = [Broker1.interface, Application1.interface, BrokerLink1.interface, FreedesktopApplication.interface, FreedesktopNotifications.interface,
                          FreedesktopPortal.fileChooser, FreedesktopPortal.request]
        var names: Set<String> = [Broker1.busName.rawValue, Broker1.objectPath.rawValue, FreedesktopNotifications.busName.rawValue, FreedesktopNotifications.objectPath.rawValue,
                                  FreedesktopPortal.busName.rawValue, FreedesktopPortal.objectPath.rawValue]
        for interface in interfaces {
            names.insert(interface.name.rawValue)
            names.formUnion(interface.methods.map(\.name.rawValue))
            names.formUnion(interface.signals.map(\.name.rawValue))
        }
        let keys = [
            CourierKey.bundleID.name, CourierKey.dryRun.name, CourierKey.progressToken.name, CourierKey.activationToken.name,
            CourierKey.desktopStartupID.name, CourierKey.timeoutMS.name, CourierKey.sourceApplication.name,
            CourierKey.sourceApplicationCamelCase.name, CourierKey.requestID.name, CourierKey.restorationArchive.name,
            CourierKey.linkAddress.name, CourierKey.squatterPID.name, CourierKey.squatterExecutable.name, CourierKey.startedBy.name,
            CourierKey.inFlight.name, CourierKey.uptimeMS.name, CourierKey.idleMS.name, CourierKey.rssBytes.name,
            CourierKey.manifestPaths.name, CourierKey.uniqueName.name, CourierKey.registryChanges.name, CourierKey.heldChangeFiles.name,
            CourierKey.heldChangeMessages.name, CourierKey.typeReason.name, CourierKey.inboxURL.name,
        ]
        names.formUnion(keys)
        return Set(names.map { "\"\($0)\"" })
    }

    @Test func noMemberKeyOrBusNameIsSpelledOutsideTheProtocol() throws {
        let sources = Self.repository.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "Sources/ was not found at \(sources.path)")
        let spellings = Self.spellings
        var found: [String] = []
        for file in files {
            let relative = "Sources/" + file
            if Self.homes.contains(where: { relative.hasPrefix($0) }) { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                // A command-line option may share a key's words (`--bundle-id`): another vocabulary.
                for spelling in spellings where line.contains(spelling) && !line.contains(".customLong(\(spelling))") {
                    found.append("\(relative):\(number + 1): \(spelling)")
                }
            }
        }
        #expect(found.isEmpty, "spelled outside CourierProtocol (use its declarations):\n\(found.sorted().joined(separator: "\n"))")
    }

    /// The search finds what it looks for: a quoted member name is one of the spellings.
    @Test func theSearchKnowsTheSpellings() {
        #expect(Self.spellings.contains("\"OpenURL\""))
        #expect(Self.spellings.contains("\"bundle-id\""))
        #expect(Self.spellings.contains("\"org.courier.Broker1\""))
        #expect(Self.spellings.contains("\"/org/courier/Broker\""))
    }
}
