import CourierTypes
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier-bench types [--files N] [--runs N] [--dir PATH]`: identify N (10,000 by default) files
/// of mixed kinds (images, PDF, zip, ELF, text, JSON, C, XML; with, without and with misleading
/// extensions) in a temporary folder.
///
/// Measured in the same run, each run timing both paths over every file (after one untimed warm-up):
/// - before: what the libmagic resolver did for every file — read 64 KiB, libmagic, the name lookup;
/// - now: `FileTypeResolver.identify(path:)` — the shared-mime-info checking order on the first
///   4096 bytes, libmagic only where the database has no rule.
/// Printed: the median time per file of each, and the ratio now/before per run (median, min–max).
enum FileTypeBenchmark {
    static func run(arguments: [String]) throws {
        var files = 10_000, runs = 5
        var directory = NSTemporaryDirectory()
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--files": files = Int(iterator.next() ?? "") ?? files
            case "--runs": runs = Int(iterator.next() ?? "") ?? runs
            case "--dir": directory = iterator.next() ?? directory
            default: print("usage: courier-bench types [--files N] [--runs N] [--dir PATH]"); return
            }
        }
        let work = directory + "/courier-bench-types-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let samples = try Self.samples()
        var paths: [String] = []
        for i in 0..<files {
            let (name, bytes) = samples[i % samples.count]
            let path = work + "/\(i)-" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        print("file-type benchmark: \(files) files (\(samples.count) kinds) in \(work), \(runs) runs")
        guard let sniffer = ContentSniffer.shared else {
            print("file-type benchmark: libmagic cannot be loaded; the 'before' path needs it")
            exit(1)
        }
        let resolver = FileTypeResolver(types: TypeGraph())
        var sink = 0
        func before() {
            var buffer = [UInt8](repeating: 0, count: ContentSniffer.maximumBytes)
            for path in paths {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
                close(fd)
                sink &+= buffer.withUnsafeBytes { sniffer.sniff(UnsafeRawBufferPointer(rebasing: $0.prefix(max(n, 0)))) }?.mimeType.count ?? 0
                sink &+= resolver.types.type(forFileName: path)?.count ?? 0
            }
        }
        func now() {
            for path in paths { sink &+= resolver.identify(path: path).typeIdentifier.count }
        }
        before()
        now()
        var beforeTimes: [Double] = [], nowTimes: [Double] = []
        for _ in 0..<runs {
            beforeTimes.append(RegistryBenchmark.time(before))
            nowTimes.append(RegistryBenchmark.time(now))
        }
        let ratios = zip(nowTimes, beforeTimes).map { $0 / $1 }.sorted()
        func perFile(_ t: [Double]) -> String { String(format: "%.1f µs", t.sorted()[t.count / 2] / Double(files) * 1e6) }
        print("before (64 KiB + libmagic + name): \(perFile(beforeTimes)) per file")
        print("now (shared-mime-info order):      \(perFile(nowTimes)) per file")
        print(String(format: "ratio now/before: %.2f (min %.2f, max %.2f over %d runs)", ratios[ratios.count / 2], ratios.first!, ratios.last!, runs))
        if sink == 42 { print("") }
    }

    /// One file of each kind, under a right name, a misleading one and none.
    static func samples() throws -> [(String, [UInt8])] {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52] + [UInt8](repeating: 7, count: 8000)
        let pdf = Array("%PDF-1.4\n%\u{E2}\u{E3}\n1 0 obj\n<< /Type /Catalog >>\nendobj\n".utf8) + [UInt8](repeating: 0x20, count: 6000)
        let zip: [UInt8] = Array("PK\u{3}\u{4}".utf8) + [UInt8](repeating: 0, count: 26) + Array("content.xml".utf8) + [UInt8](repeating: 9, count: 5000)
        let elf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/bin/true")).prefix(12000))
        let text = Array(String(repeating: "Buy milk, call Bob, write the report.\n", count: 200).utf8)
        let json = Array(("{\"tasks\": [" + (0..<200).map { "\"task \($0)\"" }.joined(separator: ", ") + "]}\n").utf8)
        let c = Array(("/* comment */\n#include <stdio.h>\n" + String(repeating: "int f(void) { return 1; }\n", count: 150)).utf8)
        let xml = Array(("<?xml version=\"1.0\"?>\n<root>" + String(repeating: "<item>a</item>", count: 300) + "</root>\n").utf8)
        var result: [(String, [UInt8])] = []
        for (ext, bytes) in [("png", png), ("pdf", pdf), ("odt", zip), ("so", elf), ("txt", text), ("json", json), ("c", c), ("xml", xml)] {
            result += [("file.\(ext)", bytes), ("file.mp3", bytes), ("file", bytes)]
        }
        return result
    }
}
