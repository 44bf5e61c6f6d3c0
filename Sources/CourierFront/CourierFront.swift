#if canImport(Glibc)
import Glibc
#endif

/// `courier`: the executable users run. It answers the common `courier open URL…` itself and hands
/// every other command line to the full CLI, `courier-tool` (ArgumentParser, Foundation, the
/// manifest registry, libmagic), with `execv` — so the one command that has to be fast never loads
/// them.
///
/// Why two executables: a process pays at start for everything it links, used or not (dynamic
/// loading, relocations, page faults of Foundation, FoundationInternationalization/ICU, libmagic,
/// libsystemd and their libraries): ~11 of the ~12 ms of CPU `courier open` took as one executable
/// (docs/broker.md, "`courier open` start-up"). This target links libdbus alone (`BrokerCall`),
/// fully static, and never imports Foundation: ~0.8 ms.
///
/// The contract: for any command line, `courier` behaves exactly as `courier-tool` does (output,
/// exit status); `OpenCommandLine` takes only the forms it can answer identically and leaves the
/// rest (`--json`, `--annotation`, `--help`, anything unusual) to the full CLI.
@main
enum CourierFront {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let request = OpenCommandLine(arguments) else {
            FullCLI.exec(arguments)
        }
        let status = OpenRunner(request).run()
        exit(status)
    }
}
