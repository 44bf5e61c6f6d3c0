import CourierInbox
import CourierProcess
import Foundation
#if canImport(Glibc)
// File head like every courier-bench section's (imports, usage comment): one section per file, by
// design.
import Glibc
#endif

/// `courier-bench drop [--size-mib N] [--runs N] [--dir PATH]`: a file (1 GiB by default) dropped
/// into an Inbox by `Inbox.drop`, against `cp` of the same file to the same folder, in the same run.
///
/// Four contestants, each timed `runs` times (7 by default) after one untimed warm-up round; the
/// order alternates every run (forwards, then backwards) so that none always follows the same one.
/// The source is written once and read once beforehand, so every contestant copies from the page
/// cache. Each copy is removed and `sync` is called between runs (not timed).
///
/// - `cp`: `/bin/cp SOURCE DEST` (coreutils: `copy_file_range` into the page cache). It returns
///   before a byte has reached the disk: the issue's baseline, but not like for like.
/// - `cp+fsync`: the same, then `fsync` of the copy: the data is on the disk when the clock stops.
///   Like for like with `drop`.
/// - `drop`: `Inbox.drop` exactly as `DropFiles` runs it (checks, `O_TMPFILE`, copy with write-back
///   pipelining, `fchmod`, `fsync`, link, `fsync` of the folder): durable, as the issue requires.
/// - `drop w/o fsync`: the same with `synchronizesToDisk` off (no write-back, no `fsync`): the copy
///   path alone. Like for like with `cp`.
///
/// Reported: each run, then the median (and range) of each, and the ratios of the medians.
enum DropBenchmark {
    static func run(arguments: [String]) throws {
        var sizeMiB = 1024, runs = 7
        var directory = NSTemporaryDirectory()
        // Each courier-bench section reads its own few options by hand: the harness links no ArgumentParser.
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--size-mib": sizeMiB = Int(iterator.next() ?? "") ?? sizeMiB
            case "--runs": runs = Int(iterator.next() ?? "") ?? runs
            case "--dir": directory = iterator.next() ?? directory
            default: print("usage: courier-bench drop [--size-mib N] [--runs N] [--dir PATH]"); return
            }
        }
        let work = directory + "/courier-bench-drop-\(getpid())"
        try FileManager.default.createDirectory(atPath: work + "/cp", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let source = work + "/source.bin"
        let bytes = Int64(sizeMiB) << 20
        try makeSource(source, bytes: bytes)
        let inbox = Inbox(containersRoot: work + "/containers")
        print("drop benchmark: \(sizeMiB) MiB, \(runs) runs each, alternating, in \(work)")

        let copy = work + "/cp/copy.bin"
        func timeCp(fsyncAfter: Bool) throws -> Double {
            let seconds = try time { try runCp(source, copy, fsyncAfter: fsyncAfter) }
            try FileManager.default.removeItem(atPath: copy)
            sync()
            return seconds
        }
        let unsynced = Inbox(containersRoot: work + "/containers", synchronizesToDisk: false)
        func timeDrop(synchronized: Bool = true, verify: Bool = false) throws -> Double {
            let inbox = synchronized ? inbox : unsynced
            let fd = open(source, O_RDONLY | O_CLOEXEC)
            defer { close(fd) }
            var delivered: [DeliveredFile] = []
            let seconds = try time {
                delivered = try inbox.drop([DropFile(descriptor: fd, suggestedName: "source.bin")], to: "org.courier.bench")
            }
            if verify {
                for file in delivered where !FileManager.default.contentsEqual(atPath: file.path, andPath: source) {
                    throw BenchmarkFailure("the dropped copy \(file.path) differs from \(source)")
                }
            }
            for file in delivered { try FileManager.default.removeItem(atPath: file.path) }
            sync()
            return seconds
        }
        // One untimed round warms caches and allocations for all four, and checks that both drops
        // deliver the source byte for byte.
        _ = try timeCp(fsyncAfter: false); _ = try timeCp(fsyncAfter: true)
        _ = try timeDrop(synchronized: false, verify: true); _ = try timeDrop(verify: true)

        var cpSeconds: [Double] = [], cpSyncSeconds: [Double] = [], dropSeconds: [Double] = [], unsyncedSeconds: [Double] = []
        for run in 1...runs {
            // Rotate who goes first, so that none always follows the same one.
            let order = run % 2 == 1 ? [0, 1, 2, 3] : [3, 2, 1, 0]
            for contestant in order {
                switch contestant {
                case 0: cpSeconds.append(try timeCp(fsyncAfter: false))
                case 1: unsyncedSeconds.append(try timeDrop(synchronized: false))
                case 2: cpSyncSeconds.append(try timeCp(fsyncAfter: true))
                default: dropSeconds.append(try timeDrop())
                }
            }
            print(String(format: "  run %d: cp %.0f, drop without fsync %.0f, cp+fsync %.0f, drop %.0f MiB/s", run,
                         Double(sizeMiB) / cpSeconds.last!, Double(sizeMiB) / unsyncedSeconds.last!,
                         Double(sizeMiB) / cpSyncSeconds.last!, Double(sizeMiB) / dropSeconds.last!))
        }
        let cp = Double(sizeMiB) / median(cpSeconds)
        let cpSync = Double(sizeMiB) / median(cpSyncSeconds)
        let drop = Double(sizeMiB) / median(dropSeconds)
        let unsyncedDrop = Double(sizeMiB) / median(unsyncedSeconds)
        func range(_ seconds: [Double]) -> String {
            String(format: "%.0f–%.0f", Double(sizeMiB) / seconds.max()!, Double(sizeMiB) / seconds.min()!)
        }
        print("""
            medians of \(runs) runs (MiB/s, range in brackets):
              cp              \(String(format: "%5.0f", cp))  [\(range(cpSeconds))]  /bin/cp: into the page cache, returns before the data is on disk
              cp+fsync        \(String(format: "%5.0f", cpSync))  [\(range(cpSyncSeconds))]  /bin/cp, then fsync of the copy: on disk when timed
              drop            \(String(format: "%5.0f", drop))  [\(range(dropSeconds))]  Inbox.drop as DropFiles runs it: write-back while copying, fsync, link, fsync of the folder
              drop w/o fsync  \(String(format: "%5.0f", unsyncedDrop))  [\(range(unsyncedSeconds))]  Inbox.drop without write-back or fsync: the copy path alone
            ratios of the medians (drop \(String(format: "%.0f", drop)), cp \(String(format: "%.0f", cp)), cp+fsync \(String(format: "%.0f", cpSync)), drop w/o fsync \(String(format: "%.0f", unsyncedDrop)) MiB/s):
              ratio drop / cp            = \(String(format: "%.2f", drop / cp))  (the issue's target: >= 0.90; cp does not wait for the disk, the drop must)
              ratio drop / (cp+fsync)    = \(String(format: "%.2f", drop / cpSync))  (like for like: both durable)
              ratio drop w/o fsync / cp  = \(String(format: "%.2f", unsyncedDrop / cp))  (like for like: neither durable)
            """)
    }

    /// Writes `bytes` of non-repeating-looking data (no holes, nothing a file system could dedupe).
    static func makeSource(_ path: String, bytes: Int64) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var block = [UInt64](repeating: 0, count: (8 << 20) / 8)
        var written: Int64 = 0
        while written < bytes {
            for index in block.indices {  // xorshift64
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                block[index] = state
            }
            let count = Int(min(Int64(block.count * 8), bytes - written))
            let result = block.withUnsafeBytes { write(fd, $0.baseAddress, count) }
            guard result == count else { throw POSIXError(.EIO) }
            written += Int64(count)
        }
        fsync(fd)
        // Read it once so that both contestants start from a cached source.
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        var buffer = [UInt8](repeating: 0, count: 8 << 20)
        while read(reader, &buffer, buffer.count) > 0 {}
        close(reader)
    }

    /// `/bin/cp SOURCE DESTINATION`, then (if asked) `fsync` of the copy, as `cp` leaves it.
    static func runCp(_ source: String, _ destination: String, fsyncAfter: Bool) throws {
        let cp = try Spawner.start(path: "/bin/cp", arguments: ["/bin/cp", "--", source, destination], standardOutput: .discard)
        guard cp.wait().succeeded else { throw BenchmarkFailure("/bin/cp \(source) \(destination) failed") }
        if fsyncAfter {
            let fd = open(destination, O_RDONLY | O_CLOEXEC)
            fsync(fd)
            close(fd)
        }
    }

    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// A benchmark that could not measure what it claims (e.g. a copy that is not the source).
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
