// `courier-test-app app|echo|payload|client|load [options]`: the recorder app, the README's example app, the
// load client and the load-run driver of docs/broker.md ("Load and leaks"). One executable so the
// driver can launch itself.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "app": try await RecorderApp.run()
    case "echo": await EchoApp.run()
    case "payload": await PayloadApp.run()
    case "lifecycle": try await LifecycleApp.run(arguments: Array(arguments.dropFirst()))
    case "save-loop": try await LifecycleApp.saveLoop(arguments: Array(arguments.dropFirst()))
    case "client": try await LoadClient.run(arguments: Array(arguments.dropFirst()))
    case "load": exit(try await LoadRun.run(arguments: Array(arguments.dropFirst())))
    default:
        print("usage: courier-test-app load [options] | app | echo | payload | lifecycle [options] | save-loop BYTES | client [options]   (courier-test-app load --help)")
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("courier-test-app: \(error)\n".utf8))
    exit(70)
}
