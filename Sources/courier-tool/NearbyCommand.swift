import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier nearby …`: AirDrop between devices (LocalSend protocol v2). The network-facing code
/// lives in its own executable, `courier-nearby` (next to this one, or in `libexec/courier/`), so
/// that neither `courierd` nor this CLI links or runs it unless asked; this command replaces
/// itself with it.
struct NearbyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearby",
        abstract: "Receive files from and send files to nearby devices (LocalSend): receive, send, serve, scan, trust, untrust, list.",
        discussion: "Run `courier nearby --help` for the subcommands. Nothing listens on the network until `courier nearby receive` runs.",
        shouldDisplay: true
    )

    @Argument(parsing: .captureForPassthrough, help: "The subcommand and its arguments.")
    var arguments: [String] = []

    func run() throws {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let folder = URL(fileURLWithPath: own).deletingLastPathComponent()
        let candidates = [folder.appendingPathComponent("courier-nearby").path,
                          folder.appendingPathComponent("../libexec/courier/courier-nearby").standardized.path]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ValidationError("courier-nearby was found neither next to \(own) nor in ../libexec/courier/; reinstall Courier (scripts/install)")
        }
        let argv = [path] + arguments
        var pointers = argv.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        execv(path, &pointers)
        throw ValidationError("cannot run \(path): \(String(cString: strerror(errno)))")
    }
}
