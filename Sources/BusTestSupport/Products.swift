public import Foundation

/// The package's built executables (todolist, courier, courierd), next to the test bundle.
public enum Products {
    public static let folder: URL = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // …/debug/CourierPackageTests.xctest is the test binary itself on Linux.
        while !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("todolist").path), url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url
    }()

    public static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
}
