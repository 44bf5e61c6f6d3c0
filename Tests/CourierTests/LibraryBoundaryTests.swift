import Foundation
import Testing

/// The app library `Courier` is what an app links and nothing more: no declaration or import in
/// `Sources/Courier` is `package` (a door other modules of this package could use and an app
/// could not), the D-Bus binding is imported internally (so the compiler keeps its types out of
/// the public API), and the tools' broker client (`Sources/CourierTools`) does not stand on the
/// app library. Internals are for this library's own tests (`@testable import`), never for a
/// module in `Sources/`.
struct LibraryBoundaryTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The lines of `text` (comments skipped) that break `rule`, as "file:line: text".
    static func offending(_ text: String, in file: String, _ rule: (Substring) -> Bool) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { number, line in
            let code = line.drop { $0 == " " }
            if code.hasPrefix("//") { return nil }
            return rule(code) ? "\(file):\(number + 1): \(code)" : nil
        }
    }

    /// A declaration or import with `package` access: the keyword as a word before code, after any
    /// attributes and other modifiers (`package let`, `@inlinable package func`, `package import`).
    static func declaresPackage(_ line: Substring) -> Bool {
        let words = line.split(separator: " ").prefix { $0.hasPrefix("@") || modifiers.contains(String($0)) }
        return words.contains("package")
    }
    static let modifiers: Set<String> = ["package", "static", "final", "nonisolated", "override", "mutating", "nonmutating", "convenience", "required", "lazy", "indirect", "dynamic"]

    static func importsBindingPublicly(_ line: Substring) -> Bool {
        line.range(of: #"^(@_exported\s+)?(public|package|open)?\s*import\s+(CDBus|DBus)\b"#, options: .regularExpression) != nil
            && !line.hasPrefix("import ")
    }

    static func files(under folder: String) throws -> [(path: String, text: String)] {
        let root = repository.appendingPathComponent(folder)
        let names = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        return try names.sorted().map { (folder + "/" + $0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test func theAppLibraryHasNoPackageDoorAndKeepsTheBindingInternal() throws {
        let sources = try Self.files(under: "Sources/Courier")
        #expect(sources.count > 15, "Sources/Courier was not found under \(Self.repository.path)")
        let doors = sources.flatMap { Self.offending($0.text, in: $0.path, Self.declaresPackage) }
        #expect(doors.isEmpty, "package declarations in the app library (tools use CourierTools' BrokerToolClient):\n\(doors.joined(separator: "\n"))")
        let binding = sources.flatMap { Self.offending($0.text, in: $0.path, Self.importsBindingPublicly) }
        #expect(binding.isEmpty, "the D-Bus binding imported beyond internal:\n\(binding.joined(separator: "\n"))")
    }

    @Test func theToolsClientDoesNotStandOnTheAppLibraryAndNoSourceOpensItsInternals() throws {
        let tools = try Self.files(under: "Sources/CourierTools")
        #expect(!tools.isEmpty)
        let onLibrary = tools.flatMap { Self.offending($0.text, in: $0.path) { $0.range(of: #"^(\w+\s+)?import\s+Courier$"#, options: .regularExpression) != nil } }
        #expect(onLibrary.isEmpty, "\(onLibrary.joined(separator: "\n"))")
        let testable = try Self.files(under: "Sources").flatMap { Self.offending($0.text, in: $0.path) { $0.hasPrefix("@testable") } }
        #expect(testable.isEmpty, "\(testable.joined(separator: "\n"))")
    }

    /// An import of the whole swift-corelibs `Foundation` (not `FoundationEssentials`).
    static func importsWholeFoundation(_ line: Substring) -> Bool {
        line.range(of: #"^(@_exported\s+)?((public|package|internal)\s+)?import\s+Foundation\s*$"#, options: .regularExpression) != nil
    }

    /// What an app links to run and to check its URLs imports `FoundationEssentials` only: one import
    /// of `Foundation` would link it, CoreFoundation and ICU's Foundation layer into every app, and
    /// their thousands of protocol-conformance records are searched at each first conformance
    /// look-up of the app's start-up (docs/PERFORMANCE.md, "Cold open").
    @Test func theAppsLibrariesImportFoundationEssentialsOnly() throws {
        for folder in ["Sources/Courier", "Sources/DBus", "Sources/CourierProtocol", "Sources/CourierNames", "Sources/CourierURL"] {
            let sources = try Self.files(under: folder)
            #expect(!sources.isEmpty, "\(folder) was not found under \(Self.repository.path)")
            let imports = sources.flatMap { Self.offending($0.text, in: $0.path, Self.importsWholeFoundation) }
            #expect(imports.isEmpty, "the whole Foundation imported by a library apps link:\n\(imports.joined(separator: "\n"))")
        }
    }

    /// The searches find what they look for.
    @Test func theSearchesRecogniseADoor() {
        #expect(Self.declaresPackage("package let connection: DBusConnection"))
        #expect(Self.declaresPackage("@inlinable package static func attach("))
        #expect(Self.declaresPackage("package import DBus"))
        #expect(!Self.declaresPackage("let package = Package("))
        #expect(!Self.declaresPackage("public func open(_ package: String)"))
        #expect(Self.importsBindingPublicly("public import DBus"))
        #expect(Self.importsBindingPublicly("@_exported public import DBus"))
        #expect(Self.importsBindingPublicly("package import CDBus"))
        #expect(!Self.importsBindingPublicly("import DBus"))
        #expect(!Self.importsBindingPublicly("public import DBusExtras"))
        #expect(Self.offending("// package let x\nlet y", in: "f", Self.declaresPackage).isEmpty)
        #expect(Self.importsWholeFoundation("import Foundation"))
        #expect(Self.importsWholeFoundation("public import Foundation"))
        #expect(!Self.importsWholeFoundation("import FoundationEssentials"))
        #expect(!Self.importsWholeFoundation("public import FoundationEssentials"))
    }
}
