@testable import CourierManifest
import CourierNames

/// libFuzzer entry point: bytes → property list → manifest, as `ManifestLoader` reads a file.
/// Any bytes must end as a manifest or as diagnostics, never a trap; and the invariants below hold.
/// A broken invariant traps, which libFuzzer reports as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let result = ManifestLoader().decode(bytes, path: "/fuzz/Info.plist")
    if let manifest = result.manifest {
        require((try? BundleIdentifier(manifest.bundleIdentifier.rawValue)) == manifest.bundleIdentifier, "a bundle id the type itself would refuse")
    } else {
        require(result.diagnostics.contains { $0.severity == .error }, "refused without an error diagnostic")
    }
    for diagnostic in result.diagnostics {
        require(!diagnostic.message.isEmpty, "a diagnostic without a message")
    }
    // The direct XML parser and Foundation must agree on what the direct parser accepts.
    if !bytes.starts(with: Array("bplist".utf8)), let fast = try? XMLPropertyListParser.parse(bytes) {
        let again = ManifestParser().parse(fast, path: "/fuzz/Info.plist")
        require((again.manifest == nil) == (result.manifest == nil), "parsing the same value twice differs")
    }
    return 0
}

func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
