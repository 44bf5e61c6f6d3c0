// `swift run -c release courier-bench <benchmark> [options]`: one line per benchmark below.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "drop": try DropBenchmark.run(arguments: Array(arguments.dropFirst()))
case "url": URLBenchmark.run(arguments: Array(arguments.dropFirst()))
case "dbus-echo": try await DBusEchoBenchmark.run(arguments: Array(arguments.dropFirst()))
case "registry": try RegistryBenchmark.run(arguments: Array(arguments.dropFirst()))
case "broker": try await BrokerBenchmark.run(arguments: Array(arguments.dropFirst()))
case "load": try LoadBenchmark.run(arguments: Array(arguments.dropFirst()))
case "lifecycle": try await LifecycleBenchmark.run(arguments: Array(arguments.dropFirst()))
case "nearby": try await NearbyBenchmark.run(arguments: Array(arguments.dropFirst()))
case "payload": try await PayloadBenchmark.run(arguments: Array(arguments.dropFirst()))
case "startup": try await StartupBenchmark.run(arguments: Array(arguments.dropFirst()))
default: print("usage: courier-bench drop|url|dbus-echo|registry|broker|load|lifecycle|nearby|payload|startup [options]")
}
