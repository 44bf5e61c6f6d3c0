import Courier

/// `courier-test-app payload`: answers each URL with the size of its annotation (`size`, counted by
/// `DBusValue.byteCount`) and, for a URL ending in `?echo`, the annotation itself (`annotation`), so
/// the caller sees exactly what arrived. The large-payload test and `courier-bench payload` launch it.
enum PayloadApp {
    struct Delegate: ApplicationDelegate {
        func openWithReply(_ url: String, options: OpenURLOptions, application: Application) async -> OpenURLResult {
            var reply: [String: CourierValue] = ["size": .uint64(UInt64(options.annotation?.dbusValue.byteCount ?? 0))]
            if url.hasSuffix("?echo"), let annotation = options.annotation { reply["annotation"] = annotation }
            return OpenURLResult(handled: true, reply: reply)
        }
    }

    static func run() async -> Never {
        await Application.run(delegate: Delegate())
    }
}
