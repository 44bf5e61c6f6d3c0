// `swift run -c release courier-bench <benchmark> [options]`: one line per benchmark below.
import Foundation

let usage = "usage: courier-bench drop|url|iri|dbus-echo|registry|types|broker|load|lifecycle|nearby|payload|startup|share|launch-images [options]"
let arguments = Array(CommandLine.arguments.dropFirst())
let options = Array(arguments.dropFirst())
// A wrong option or a failed run ends with one line on stderr and exit status 2 (as `courier`
// does for usage errors), never a trap with a backtrace.
do {
    switch arguments.first {
    case "drop": try DropBenchmark.run(arguments: options)
    case "url": URLBenchmark.run(arguments: options)
    case "iri": IRIBenchmark.run(arguments: options)
    case "dbus-echo": try await DBusEchoBenchmark.run(arguments: options)
    case "registry": try RegistryBenchmark.run(arguments: options)
    case "types": try FileTypeBenchmark.run(arguments: options)
    case "broker": try await BrokerBenchmark.run(arguments: options)
    case "load": try LoadBenchmark.run(arguments: options)
    case "lifecycle": try await LifecycleBenchmark.run(arguments: options)
    case "nearby": try await NearbyBenchmark.run(arguments: options)
    case "payload": try await PayloadBenchmark.run(arguments: options)
    case "startup": try await StartupBenchmark.run(arguments: options)
    case "share": try await ShareBenchmark.run(arguments: options)
    case "launch-images": try await LaunchImageBenchmark.run(arguments: options)
    case "-h", "--help", "help": print(usage)
    default:
        FileHandle.standardError.write(Data("\(usage)\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("courier-bench \(arguments.first ?? ""): \(error)\n".utf8))
    exit(2)
}
