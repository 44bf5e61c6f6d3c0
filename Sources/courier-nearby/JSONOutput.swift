import Foundation

/// One JSON object on standard output (sorted keys, slashes unescaped), as `courier … --json` prints.
func printJSON(_ object: Any) {
    if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
