import CourierManifest
import CourierTypes
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier-bench registry [--apps N] [--runs N] [--dir PATH]`: load N (10,000 by default)
/// generated manifests from a temporary folder into a registry, then look schemes and types up.
///
/// Measured in the same run, medians of the runs (after one untimed warm-up):
/// - baseline: reading the N files (open, read, close) with nothing else;
/// - decode: the same plus `PropertyListSerialization` (what any plist reader pays);
/// - load: `ManifestLoader.load(folders:)` (read safely, decode, validate, diagnose) plus
///   `Registry.build` (index, first-claim order, types) — the registry's whole start-up;
/// - lookups: `handlers(forScheme:)` over every scheme, against the same lookups in a registry of
///   10 apps (the ratio shows lookup cost does not grow with the number of apps), and
///   `handlers(forType:)`.
enum RegistryBenchmark {
    static func run(arguments: [String]) throws {
        var apps = 10_000, runs = 5
        var directory = NSTemporaryDirectory()
        // Each courier-bench section reads its own few options by hand: the harness links no ArgumentParser.
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--apps": apps = Int(iterator.next() ?? "") ?? apps
            case "--runs": runs = Int(iterator.next() ?? "") ?? runs
            case "--dir": directory = iterator.next() ?? directory
            default: print("usage: courier-bench registry [--apps N] [--runs N] [--dir PATH]"); return
            }
        }
        let work = directory + "/courier-bench-registry-\(getpid())"
        let big = work + "/big", small = work + "/small"
        try FileManager.default.createDirectory(atPath: big, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        var totalBytes = 0
        for i in 0..<apps { totalBytes += try writeManifest(i, into: big) }
        for i in 0..<10 { _ = try writeManifest(i, into: small) }
        print("registry benchmark: \(apps) manifests (\(totalBytes / apps) bytes each on average) in \(big), \(runs) runs, median")

        let paths = try FileManager.default.contentsOfDirectory(atPath: big).sorted().map { big + "/" + $0 }
        let loader = ManifestLoader()
        let types = TypeGraph()
        let empty = Registry(types: types)
        func readAll() -> Int {
            var n = 0
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            for p in paths {
                let fd = open(p, O_RDONLY | O_CLOEXEC)
                n += buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            return n
        }
        func decodeAll() -> Int {
            var n = 0
            for p in paths {
                if let data = FileManager.default.contents(atPath: p),
                   let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any] {
                    n += plist.count
                }
            }
            return n
        }
        var registry = empty
        func loadAll() -> Registry {
            let loaded = loader.load(folders: [big])
            return Registry.build(files: loaded.files, folderDiagnostics: loaded.diagnostics, previous: empty).registry
        }
        _ = readAll(); _ = decodeAll(); registry = loadAll()
        let readSeconds = median((0..<runs).map { _ in time { _ = readAll() } })
        let decodeSeconds = median((0..<runs).map { _ in time { _ = decodeAll() } })
        let loadSeconds = median((0..<runs).map { _ in time { registry = loadAll() } })
        // The two stages apart, wall and CPU (all threads): the machine may be shared, and CPU time
        // is what the work itself costs.
        var loaded = loader.load(folders: [big])
        let c0 = cpu()
        let loadOnly = median((0..<runs).map { _ in time { loaded = loader.load(folders: [big]) } })
        let c1 = cpu()
        let buildOnly = median((0..<runs).map { _ in time { registry = Registry.build(files: loaded.files, previous: empty).registry } })
        let c2 = cpu()
        precondition(registry.applications.count == apps, "every generated manifest must load")
        precondition(registry.diagnostics.isEmpty || registry.diagnostics.allSatisfy { $0.code == .schemeConflict })

        let smallRegistry = Registry.build(files: loader.load(folders: [small]).files, previous: empty).registry
        let schemes = (0..<apps).map { "app\($0)" }
        let smallSchemes = (0..<apps).map { "app\($0 % 10)" }
        var sink = 0
        let lookupBig = median((0..<runs).map { _ in time { for s in schemes { sink &+= registry.handlers(forScheme: s).candidates.count } } })
        let lookupSmall = median((0..<runs).map { _ in time { for s in smallSchemes { sink &+= smallRegistry.handlers(forScheme: s).candidates.count } } })
        let typeIDs = (0..<1000).map { "com.bench.app\($0 * (apps / 1000)).doc" }
        let typeLookup = median((0..<runs).map { _ in time { for t in typeIDs { sink &+= registry.handlers(forType: t).candidates.count } } })
        let conflict = registry.handlers(forScheme: "shared")

        func ms(_ s: Double) -> String { String(format: "%8.1f ms", s * 1000) }
        func us(_ s: Double, _ n: Int) -> String { String(format: "%7.2f µs", s / Double(n) * 1e6) }
        print("  read \(apps) files (baseline)        \(ms(readSeconds))")
        print("  + PropertyListSerialization          \(ms(decodeSeconds))   \(String(format: "%.2f", decodeSeconds / readSeconds))× baseline")
        print("  load + build registry (Courier)      \(ms(loadSeconds))   \(String(format: "%.2f", loadSeconds / readSeconds))× baseline, \(String(format: "%.2f", loadSeconds / decodeSeconds))× decode-only")
        print("    of which: read+decode+validate \(ms(loadOnly)) wall, \(ms((c1 - c0) / Double(runs))) CPU; build registry \(ms(buildOnly)) wall, \(ms((c2 - c1) / Double(runs))) CPU")
        print("  handlers(forScheme:) in \(apps) apps    \(us(lookupBig, schemes.count)) per lookup")
        print("  handlers(forScheme:) in 10 apps        \(us(lookupSmall, smallSchemes.count)) per lookup   ratio \(String(format: "%.2f", lookupBig / lookupSmall)) (1.0 = independent of app count)")
        print("  handlers(forType:) in \(apps) apps      \(us(typeLookup, typeIDs.count)) per lookup")
        print("  'shared' scheme: \(conflict.candidates.count) candidates, chosen \(conflict.chosen?.bundleIdentifier ?? "none")  (checksum \(sink % 10))")
        let cpuTotal = (c2 - c0) / Double(runs)
        let loadAverage = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
        print("  target, well under 1 s: \(loadSeconds < 1.0 ? "met" : "NOT met") in wall time (\(ms(loadSeconds))), \(cpuTotal < 1.0 ? "met" : "NOT met") in CPU time (\(ms(cpuTotal)), what the work costs whatever else runs); load average \(loadAverage) on \(ProcessInfo.processInfo.activeProcessorCount) cores")
    }

    /// A realistic small Info.plist: unrelated keys, one URL type, one document type, an exported
    /// type, a launch command; every 100th app also claims the scheme `shared` (a conflict).
    static func writeManifest(_ i: Int, into folder: String) throws -> Int {
        let shared = i % 100 == 0 ? "<string>shared</string>" : ""
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        	<key>CFBundleIdentifier</key><string>com.bench.app\(i)</string>
        	<key>CFBundleName</key><string>Bench App \(i)</string>
        	<key>CFBundleShortVersionString</key><string>1.\(i % 10)</string>
        	<key>CFBundleVersion</key><string>$(CURRENT_PROJECT_VERSION)</string>
        	<key>LSRequiresIPhoneOS</key><true/>
        	<key>UIDeviceFamily</key><array><integer>1</integer><integer>2</integer></array>
        	<key>CourierLaunchArguments</key><array><string>bench-app</string><string>--id</string><string>\(i)</string></array>
        	<key>CFBundleURLTypes</key>
        	<array><dict>
        		<key>CFBundleURLName</key><string>com.bench.app\(i)</string>
        		<key>CFBundleURLSchemes</key><array><string>app\(i)</string>\(shared)</array>
        		<key>CFBundleTypeRole</key><string>Editor</string>
        		<key>LSHandlerRank</key><string>\(i % 3 == 0 ? "Owner" : "Default")</string>
        	</dict></array>
        	<key>CFBundleDocumentTypes</key>
        	<array><dict>
        		<key>CFBundleTypeName</key><string>Document</string>
        		<key>LSItemContentTypes</key><array><string>com.bench.app\(i).doc</string></array>
        		<key>CFBundleTypeRole</key><string>Editor</string>
        		<key>LSHandlerRank</key><string>Owner</string>
        	</dict></array>
        	<key>UTExportedTypeDeclarations</key>
        	<array><dict>
        		<key>UTTypeIdentifier</key><string>com.bench.app\(i).doc</string>
        		<key>UTTypeConformsTo</key><array><string>public.json</string></array>
        		<key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array><string>bench\(i)</string></array></dict>
        	</dict></array>
        </dict>
        </plist>
        """
        let data = Data(xml.utf8)
        try data.write(to: URL(fileURLWithPath: folder + "/com.bench.app\(i).plist"))
        return data.count
    }

    static func time(_ body: () -> Void) -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        body()
        clock_gettime(CLOCK_MONOTONIC, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    /// CPU time of the whole process (all threads), seconds.
    static func cpu() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
