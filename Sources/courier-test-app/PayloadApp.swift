import Courier

/// `courier-test-app payload`: answers each URL with the size of its annotation (`size`: its bytes
/// for an `ay`, its UTF-8 bytes for a string) and, for a URL ending in `?echo`, the annotation itself (`annotation`), so
/// the caller sees exactly what arrived. The large-payload test and `courier-bench payload` launch it.
enum PayloadApp {
    struct Delegate: ApplicationDelegate {
        func openWithReply(_ url: String, options: OpenURLOptions, application: Application) async -> OpenURLResult {
            let size = options.annotation.map { $0.bytesValue?.count ?? $0.stringValue?.utf8.count ?? 0 } ?? 0
            var reply: [String: CourierValue] = ["size": .uint64(UInt64(size))]
            if url.hasSuffix("?echo"), let annotation = options.annotation { reply["annotation"] = annotation }
            return OpenURLResult(handled: true, reply: reply)
        }
    }

    static func run() async -> Never {
        await Application.run(delegate: Delegate())
    }
}
