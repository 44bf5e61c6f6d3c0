import ArgumentParser
import CourierNearby

/// `courier nearby trust FINGERPRINT`: let this sender in without asking.
struct TrustCommand: ParsableCommand {
    // Declared like courier-tool's commands (ArgumentParser's shape); a separate executable.
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Trust a sender: its sessions are accepted without asking.",
        discussion: "The fingerprint is the SHA-256 the other device shows (courier nearby scan prints it). Without mutual TLS (LocalSend 2.2) a sender's fingerprint is only declared, not proven: see docs/nearby.md."
    )

    @Argument(help: "The sender's fingerprint (64 hex digits, colons allowed).")
    var fingerprint: String

    @Option(help: "A name to remember it by.")
    var alias: String = ""

    func run() throws {
        let context = NearbyContext()
        var list = try TrustList.load(from: context.trustListPath)
        let added = try list.trust(fingerprint, alias: alias)
        try list.save(to: context.trustListPath)
        print(added ? "trusted \(try TrustList.normalized(fingerprint))" : "already trusted \(try TrustList.normalized(fingerprint)) (alias updated)")
    }
}

/// `courier nearby untrust FINGERPRINT|ALIAS`.
struct UntrustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "untrust", abstract: "Stop trusting a sender.")

    @Argument(help: "The sender's fingerprint or the alias it was trusted under.")
    var sender: String

    func run() throws {
        let context = NearbyContext()
        var list = try TrustList.load(from: context.trustListPath)
        let removed = list.untrust(sender)
        guard !removed.isEmpty else {
            throw NearbyCommandError("courier nearby untrust: \(sender.debugDescription) is not trusted (courier nearby list shows who is)")
        }
        try list.save(to: context.trustListPath)
        for entry in removed { print("untrusted \(entry.fingerprint)\(entry.alias.isEmpty ? "" : " (\(entry.alias))")") }
    }
}

/// `courier nearby list [--json]`: the trusted senders, and this device's own fingerprint.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List trusted senders and this device's fingerprint.")

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let context = NearbyContext()
        let list = try TrustList.load(from: context.trustListPath)
        let fingerprint = try context.identity().fingerprint
        if json {
            printJSON(["fingerprint": fingerprint, "trusted": list.entries.map { ["fingerprint": $0.fingerprint, "alias": $0.alias] }])
        } else {
            print("this device: \(fingerprint)")
            if list.entries.isEmpty { print("no trusted senders (courier nearby trust FINGERPRINT adds one)") }
            for entry in list.entries { print("trusted: \(entry.fingerprint)\(entry.alias.isEmpty ? "" : "  \(entry.alias)")") }
        }
    }
}
