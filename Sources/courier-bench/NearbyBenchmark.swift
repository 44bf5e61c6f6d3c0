import BusTestSupport
import CourierTools
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier-bench nearby [--size-mib N | --size 1g] [--runs N] [--placement split|same|free]
/// [--dir PATH]`: the LocalSend measurements, every ratio against a baseline measured in the same run.
///
/// - **Upload** of one file (1 GiB by default) with `curl` over HTTPS on loopback into
///   `courier nearby receive` — `prepare-upload`, then `upload`, which answers only once the file
///   is in the app's Inbox, durable (the body streamed once into an unnamed file in the Inbox, which
///   `DropFiles` checks, `fsync`s and links) — against the same `curl` uploading the same bytes to
///   Debian's nginx (WebDAV `PUT`: the request body written to a temporary file, then renamed into
///   place), followed by an `fsync` of the stored file and its folder inside the timed window, so
///   that both sides are durable when the clock stops; and into `localsendd` (PyPI, unattended),
///   the same `prepare-upload` and `upload`. Same client, same TLS 1.3 cipher
///   (`TLS_AES_256_GCM_SHA384`, forced on both), same P-256 certificate type, no `Expect:
///   100-continue` wait, nginx's body buffer at 1 MiB like the receiver's writes. `runs` rounds
///   (at least 5), the order rotating each round, after an untimed warm-up (which also has the
///   broker launch the app). Each median is printed with its spread (the slowest and fastest
///   round, and (max − min) / median). Targets: courier ≥ 1.0 × nginx, ≥ 1.3 × localsendd (medians).
/// - **The link, not a copy**: the receiver runs in the benchmark's mount namespace (it enters the
///   network namespace only), so its unnamed file is on the mount the broker links it on; each
///   round checks that the delivered file is the very inode the receiver wrote (seen in its
///   `/proc/PID/fd` during the upload), and fails if it was copied.
/// - **Like for like between rounds**: the source file is read through (into the page cache)
///   before every upload, and `sync` writes back what the last round left dirty, so no round
///   starts with a colder cache or a writeback backlog than another. (Dropping the caches instead
///   would be machine-wide.)
/// - **CPU placement** (`--placement`, `split` by default on two CPUs or more): `curl` on CPU 0, the
///   server under test (the receiver with courierd and the app it launches, nginx, localsendd) on
///   CPU 1, the same for every contestant. Left free, the scheduler puts nginx on curl's CPU in
///   some rounds and not in others, and its rate differs between the two — its two modes (see
///   docs/PERFORMANCE.md). Each round prints the share of samples the server spent on curl's CPU;
///   after the rounds, a **placement check** moves nginx onto curl's CPU for 3 rounds and prints
///   that rate beside the split one, so every report shows the effect it controls.
/// - **Memory**: the receiver's RSS sampled every 10 ms during each upload; growth = the highest
///   sample − the RSS just before. Target: < 32 MiB.
/// - **`localsend-cli receive`** (PyPI): one upload (it holds the whole body in memory).
/// - **Discovery**: `localsendd` in one network namespace, `courier nearby receive` started in
///   another (a veth pair between them); the time from the start of the process until localsendd
///   lists it (polled every 5 ms over its control socket). Three starts. Target: ≤ 1 s.
///
/// Everything network-facing runs in network namespaces the benchmark makes (one with only a
/// loopback for the uploads; the veth pair for discovery), so nothing reaches any other address
/// and LocalSend's fixed port is free; without root the uploads run on the host's loopback and the
/// LocalSend peers (which announce by multicast) and discovery are skipped, saying so.
enum NearbyBenchmark {
    static let bundleID = "org.example.bench.nearby"
    static let pin = "4711"
    static let cipher = "TLS_AES_256_GCM_SHA384"
    static let usage = "usage: courier-bench nearby [--size-mib N | --size 1g] [--runs N] [--placement split|same|free] [--dir PATH]"

    static func run(arguments: [String]) async throws {
        var sizeMiB = 1024, runs = 5
        var directory = NSTemporaryDirectory()
        var placementName = "split"
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--size-mib": sizeMiB = Int(iterator.next() ?? "") ?? sizeMiB
            case "--size":
                let value = (iterator.next() ?? "").lowercased()
                guard let number = Int(value.dropLast()), let unit = value.last, let shift = ["m": 0, "g": 10][unit], number > 0 else {
                    print("courier-bench nearby: --size takes a size in MiB or GiB such as 256m or 1g"); return
                }
                sizeMiB = number << shift
            case "--runs": runs = max(5, Int(iterator.next() ?? "") ?? runs)
            case "--placement": placementName = iterator.next() ?? ""
            case "--dir": directory = iterator.next() ?? directory
            default: print(usage); return
            }
        }
        guard let placement = CPUPlacement(placementName) else { print(usage); return }
        for tool in ["/usr/sbin/nginx", "/usr/bin/curl", "/usr/bin/openssl", "/usr/bin/taskset", "/usr/bin/nsenter"] where !FileManager.default.isExecutableFile(atPath: tool) {
            print("nearby benchmark skipped: \(tool) is missing (scripts/bootstrap installs nginx, curl, openssl and util-linux)")
            return
        }
        for product in ["courier-nearby", "courierd", "courier-test-app"] where !FileManager.default.isExecutableFile(atPath: Products.path(product)) {
            print("nearby benchmark skipped: \(Products.path(product)) is not built (swift build -c release --product \(product))")
            return
        }
        let work = URL(fileURLWithPath: directory).appendingPathComponent("courier-bench-nearby-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let source = work.appendingPathComponent("source.bin").path
        try DropBenchmark.makeSource(source, bytes: Int64(sizeMiB) << 20)

        let loopback = await IsolatedLoopback.make()
        defer { loopback?.remove() }
        print("nearby benchmark: \(sizeMiB) MiB uploaded with curl over HTTPS (\(cipher)) on \(loopback == nil ? "the host's loopback (no network namespace: not root)" : "the loopback of a network namespace of its own"), \(runs) rounds, the order rotating")
        print("  machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(loadAverage()) at start (shared with other builds: absolute figures vary, ratios are from this run)")
        print("  CPU placement: \(placement.description); the source is read into the page cache and dirty pages are written back (sync) before every upload")

        let stack = try await CourierStack(work: work, loopback: loopback, placement: placement)
        defer { stack.stop() }
        let nginx = try await Nginx(work: work.appendingPathComponent("nginx", isDirectory: true), loopback: loopback, placement: placement)
        defer { nginx.stop() }
        var localsendd: PythonReceiver?
        if let loopback {
            do {
                localsendd = try await PythonReceiver(.localsendd, work: work, loopback: loopback, environment: stack.environment, placement: placement)
            } catch {
                print("  localsendd: not measured: \(error)")
            }
        }
        defer { localsendd?.stop() }
        let curl = Curl(loopback: loopback, environment: stack.environment, placement: placement)

        // Warm-up, untimed: the broker launches the app at the first drop; TLS, page cache.
        let warm = work.appendingPathComponent("warm.bin").path
        try DropBenchmark.makeSource(warm, bytes: 1 << 20)
        _ = try await stack.upload(warm, name: "warm.bin", curl: curl)
        _ = try await nginx.upload(warm, curl: curl)
        _ = try await localsendd?.upload(warm, curl: curl)

        var contestants = ["courier", "nginx"] + (localsendd == nil ? [] : ["localsendd"])
        var seconds: [String: [Double]] = [:], shared: [String: Double] = [:], growth: [Int] = [], linked = 0
        let inbox = stack.inbox.resolvingSymlinksInPath().path
        for round in 1...runs {
            for contestant in contestants {
                try Self.prepareRound(source)
                switch contestant {
                case "courier":
                    let sampler = RSSSampler(pid: stack.receiver.pid, watching: inbox)
                    let overlap = CPUOverlap(server: stack.receiver.pid)
                    sampler.start()
                    let upload = try await stack.upload(source, name: "upload.bin", curl: curl, overlap: overlap, writtenInode: { sampler.stop().inode })
                    growth.append(sampler.growth)
                    seconds["courier", default: []].append(upload.seconds)
                    shared["courier"] = overlap.stop()
                    if upload.linked { linked += 1 }
                case "nginx":
                    let overlap = CPUOverlap(server: nginx.process.pid)
                    seconds["nginx", default: []].append(try await nginx.upload(source, curl: curl, overlap: overlap))
                    shared["nginx"] = overlap.stop()
                default:
                    let overlap = CPUOverlap(server: localsendd!.process.pid)
                    seconds["localsendd", default: []].append(try await localsendd!.upload(source, curl: curl, overlap: overlap))
                    shared["localsendd"] = overlap.stop()
                }
            }
            print("  round \(round): " + contestants.map { name in
                String(format: "%@ %.0f MiB/s", name, Double(sizeMiB) / seconds[name]!.last!)
                    + (name == "courier" ? String(format: " RSS +%.1f MiB", Double(growth.last!) / 1_048_576) : "")
                    + (shared[name].map { String(format: " [on curl's CPU %.0f%%]", $0 * 100) } ?? "")
            }.joined(separator: ", "))
            contestants.append(contestants.removeFirst())
        }
        let rate = { (name: String) -> Double in Double(sizeMiB) / DropBenchmark.median(seconds[name] ?? [.infinity]) }
        let maxGrowth = Double(growth.max() ?? 0) / 1_048_576

        // The placement check: nginx on curl's CPU, the mode a free placement sometimes falls into.
        var sameCPU: [Double] = [], sameCPUShare: [Double] = []
        if let client = placement.client, placement.server != client {
            try await nginx.move(to: client)
            for _ in 1...3 {
                try Self.prepareRound(source)
                let overlap = CPUOverlap(server: nginx.process.pid)
                sameCPU.append(try await nginx.upload(source, curl: curl, overlap: overlap))
                if let share = overlap.stop() { sameCPUShare.append(share) }
            }
        }

        var cli: Double?
        if let loopback {
            localsendd?.stop()
            do {
                let receiver = try await PythonReceiver(.localsendCLI, work: work, loopback: loopback, environment: stack.environment, placement: placement)
                defer { receiver.stop() }
                try Self.prepareRound(source)
                cli = Double(sizeMiB) / (try await receiver.upload(source, curl: curl))
            } catch {
                print("  localsend-cli: not measured: \(error)")
            }
        }
        stack.stopReceiver()

        let discovery = try await DiscoveryTiming.measure(work: work, environment: stack.environment, starts: 3)

        print("results (MiB/s, medians of \(runs) rounds, slowest–fastest and spread beside each; load average \(loadAverage()) at the end):")
        print(String(format: "  courier nearby receive  %5.0f  %@  curl → HTTPS → unnamed file in the Inbox, linked by DropFiles (durable: fsync)", rate("courier"), Self.spread(seconds["courier"]!, mib: sizeMiB)))
        print(String(format: "  nginx (Debian)          %5.0f  %@  curl → HTTPS → WebDAV PUT to a file, then fsync (durable)", rate("nginx"), Self.spread(seconds["nginx"]!, mib: sizeMiB)))
        if let times = seconds["localsendd"] {
            print(String(format: "  localsendd              %5.0f  %@  curl → HTTPS → its download folder (Python)", rate("localsendd"), Self.spread(times, mib: sizeMiB)))
        }
        if let cli { print(String(format: "  localsend-cli           %5.0f  (one upload)  curl → HTTPS → its download folder (Python, the body held in memory)", cli)) }
        if !sameCPU.isEmpty {
            print(String(format: "  nginx, curl on its CPU  %5.0f  %@  placement check (3 rounds, on curl's CPU %@): %.2f × nginx on a CPU of its own",
                         Double(sizeMiB) / DropBenchmark.median(sameCPU), Self.spread(sameCPU, mib: sizeMiB),
                         sameCPUShare.map { String(format: "%.0f%%", $0 * 100) }.joined(separator: ", "), DropBenchmark.median(seconds["nginx"]!) / DropBenchmark.median(sameCPU)))
        }
        print("  the link: in \(linked) of \(runs) rounds the receiver's unnamed file was seen during the upload, and it is the delivered file (the others were too quick to see)")
        let medians = { (name: String) in String(format: "%.0f %@ / %.0f %@ MiB/s", rate("courier"), Self.spread(seconds["courier"]!, mib: sizeMiB), rate(name), Self.spread(seconds[name]!, mib: sizeMiB)) }
        print(String(format: "  ratio courier / nginx          = %.2f  (target >= 1.00)  medians %@", rate("courier") / rate("nginx"), medians("nginx")))
        if seconds["localsendd"] != nil {
            print(String(format: "  ratio courier / localsendd     = %.2f  (target >= 1.30)  medians %@", rate("courier") / rate("localsendd"), medians("localsendd")))
        } else {
            print("  localsendd: skipped (it announces by multicast: it runs only in a network namespace, which needs root)")
        }
        if let cli { print(String(format: "  ratio courier / localsend-cli  = %.2f  (target > 1.00)", rate("courier") / cli)) }
        print(String(format: "  receiver RSS growth during a %d MiB upload = %.1f MiB at most  (target < 32 MiB)", sizeMiB, maxGrowth))
        switch discovery {
        case .measured(let milliseconds):
            let sorted = milliseconds.sorted()
            print(String(format: "  discovery: localsendd in another namespace lists the receiver %.0f ms after its start (median of %d: %@)  (target <= 1000 ms)",
                         sorted[sorted.count / 2], sorted.count, sorted.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
        case .skipped(let why):
            print("  discovery: skipped: \(why)")
        }
    }

    /// Before every timed upload: the source read through (so it comes from the page cache, as in
    /// every other round) and the dirty pages of the last round written back.
    static func prepareRound(_ source: String) throws {
        let fd = open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BenchmarkFailure("cannot open \(source): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
        sync()
    }

    /// SIGTERM, up to 3 s to end, then SIGKILL.
    static func stop(_ process: BackgroundProcess) {
        process.signal(SIGTERM)
        for _ in 0..<300 where process.exitStatus == nil { Thread.sleep(forTimeInterval: 0.01) }
        process.kill()
    }

    /// The spread of rounds that took `seconds` each: slowest–fastest in MiB/s and (max − min) / median.
    static func spread(_ seconds: [Double], mib: Int) -> String {
        let rates = seconds.map { Double(mib) / $0 }.sorted()
        guard let low = rates.first, let high = rates.last else { return "" }
        let median = Double(mib) / DropBenchmark.median(seconds)
        return String(format: "(%.0f–%.0f, spread %.0f%%)", low, high, (high - low) / median * 100)
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// CLOCK_MONOTONIC in seconds: the clock Python's `time.monotonic()` reads, in every namespace.
    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// A free TCP port on the host (a namespace of the benchmark's own has all of them free).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits (at most 20 s) until `text()` matches `pattern`; returns the first capture group.
    static func waitFor(_ pattern: String, in text: () -> String, while alive: () -> Bool) async throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        for _ in 0..<2000 {
            let current = text()
            if let match = regex.firstMatch(in: current, range: NSRange(current.startIndex..., in: current)),
               let range = Range(match.range(at: 1), in: current) {
                return String(current[range])
            }
            guard alive() else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchmarkFailure("no line matching \(pattern) in: \(text().suffix(600))")
    }
}

/// `curl` as every upload uses it, inside the loopback namespace when there is one, on the
/// client's CPU.
struct Curl {
    let loopback: IsolatedLoopback?
    let environment: [String: String]
    let placement: CPUPlacement

    /// Runs curl (watched by `overlap` when given); returns the HTTP status, curl's own
    /// `time_total` and the body.
    func run(_ arguments: [String], bodyFile: String, overlap: CPUOverlap? = nil) async throws -> (status: Int, seconds: Double, body: String) {
        let command = placement.onClient(loopback.command("/usr/bin/curl", ["-sk", "--http1.1", "--tls13-ciphers", NearbyBenchmark.cipher, "-H", "Expect:",
                                                         "-o", bodyFile, "-w", "%{http_code} %{time_total}"] + arguments))
        let child = try BackgroundProcess(command.executable, command.arguments, environment: environment,
                                          stdoutPath: bodyFile + ".curl-out", stderrPath: bodyFile + ".curl-err")
        overlap?.watch(client: child.pid)
        _ = await child.wait()
        let (output, errors) = (child.output, child.errors)
        try? FileManager.default.removeItem(atPath: bodyFile + ".curl-out")
        try? FileManager.default.removeItem(atPath: bodyFile + ".curl-err")
        let fields = output.split(separator: " ")
        guard fields.count == 2, let status = Int(fields[0]), let seconds = Double(fields[1]) else {
            throw BenchmarkFailure("curl \(arguments.last ?? ""): \(output) \(errors)")
        }
        let body = (try? String(contentsOfFile: bodyFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: bodyFile)
        return (status, seconds, body)
    }

    /// `prepare-upload` of one file, then its `upload` (timed); the LocalSend v2 exchange.
    func localSendUpload(_ path: String, name: String, to base: String, pin: String?, scratch: URL, overlap: CPUOverlap? = nil) async throws -> Double {
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        let prepare: [String: Any] = [
            "info": ["alias": "curl", "version": "2.0", "deviceType": "headless", "fingerprint": String(repeating: "c", count: 64), "port": 53317, "protocol": "https", "download": false],
            "files": ["f1": ["id": "f1", "fileName": name, "size": size, "fileType": "application/octet-stream"]],
        ]
        let json = scratch.appendingPathComponent("prepare-\(UUID().uuidString).json").path
        try JSONSerialization.data(withJSONObject: prepare).write(to: URL(fileURLWithPath: json))
        defer { try? FileManager.default.removeItem(atPath: json) }
        let answer = try await run(["-X", "POST", "-H", "content-type: application/json", "--data-binary", "@\(json)",
                                     base + "prepare-upload" + (pin.map { "?pin=\($0)" } ?? "")], bodyFile: json + ".out")
        guard answer.status == 200, let object = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
              let session = object["sessionId"] as? String, let token = (object["files"] as? [String: String])?["f1"] else {
            throw BenchmarkFailure("prepare-upload at \(base) answered \(answer.status): \(answer.body.prefix(300))")
        }
        let upload = try await run(["-X", "POST", "-T", path, base + "upload?sessionId=\(session)&fileId=f1&token=\(token)"], bodyFile: json + ".upload", overlap: overlap)
        guard upload.status == 200 else { throw BenchmarkFailure("upload at \(base) answered \(upload.status): \(upload.body.prefix(300))") }
        return upload.seconds
    }
}

/// A private bus, courierd with one app that takes any file (the recorder app of
/// courier-test-app, launched by the broker), and `courier nearby receive --to` it in PIN mode;
/// courierd (and so the app it launches) and the receiver on the server's CPU.
final class CourierStack: @unchecked Sendable {
    let bus: PrivateBus
    let environment: [String: String]
    let courierd: BackgroundProcess
    let receiver: BackgroundProcess
    let port: Int
    let work: URL
    var inbox: URL { work.appendingPathComponent("data/courier/containers/\(NearbyBenchmark.bundleID)/Documents/Inbox", isDirectory: true) }

    init(work: URL, loopback: IsolatedLoopback?, placement: CPUPlacement) async throws {
        self.work = work
        bus = try PrivateBus()
        var environment = bus.environment(homesIn: work)
        environment["HOME"] = work.appendingPathComponent("home").path
        environment["COURIER_LOG_LEVEL"] = "notice"
        environment["PATH"] = "/usr/local/bin:/usr/bin:/bin"
        for name in ["http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"] { environment[name] = nil }
        self.environment = environment
        let manifests = work.appendingPathComponent("manifests", isDirectory: true)
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        let manifest: [String: Any] = [
            "CFBundleIdentifier": NearbyBenchmark.bundleID, "CFBundleName": "Nearby bench",
            "CourierLaunchArguments": [Products.path("courier-test-app"), "app"],
            "CFBundleDocumentTypes": [["CFBundleTypeName": "Anything", "LSItemContentTypes": ["public.data"], "CFBundleTypeRole": "Viewer"]],
        ]
        try PropertyListSerialization.data(fromPropertyList: manifest, format: .xml, options: 0)
            .write(to: manifests.appendingPathComponent("\(NearbyBenchmark.bundleID).plist"))
        let daemon = placement.onServer((Products.path("courierd"), ["--manifests", manifests.path, "--log-level", "warning"]))
        courierd = try BackgroundProcess(daemon.executable, daemon.arguments, environment: environment, outputIn: work, name: "courierd")
        let client = BrokerToolClient(connection: try bus.connect())
        for _ in 0..<500 where !(await client.brokerIsRunning()) { try await Task.sleep(for: .milliseconds(10)) }
        client.connection.close()
        let command = placement.onServer(loopback.command(Products.path("courier-nearby"), ["receive", "--to", NearbyBenchmark.bundleID, "--pin", NearbyBenchmark.pin,
                                                                                           "--bind", "127.0.0.1", "--port", "0", "--no-discovery"]))
        receiver = try BackgroundProcess(command.executable, command.arguments, environment: environment, outputIn: work, name: "receiver")
        let receiver = receiver
        port = Int(try await NearbyBenchmark.waitFor(#"on https://127\.0\.0\.1:(\d+)"#, in: { receiver.errors }, while: { receiver.exitStatus == nil })) ?? 0
    }

    /// One upload into the Inbox; checks the delivered file's size and, when `writtenInode` gives
    /// the inode of the unnamed file the receiver wrote, that the delivered file is that inode
    /// (linked, not copied); removes it; returns curl's time and whether the link was seen.
    @discardableResult
    func upload(_ path: String, name: String, curl: Curl, overlap: CPUOverlap? = nil, writtenInode: () -> UInt64? = { nil }) async throws -> (seconds: Double, linked: Bool) {
        let seconds = try await curl.localSendUpload(path, name: name, to: "https://127.0.0.1:\(port)/api/localsend/v2/", pin: NearbyBenchmark.pin, scratch: work, overlap: overlap)
        let delivered = inbox.appendingPathComponent(name).path
        var status = stat()
        let size = stat(delivered, &status) == 0 ? Int64(status.st_size) : nil
        let expected = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        guard size == expected else { throw BenchmarkFailure("\(delivered) has \(size.map(String.init) ?? "no") bytes, not \(expected ?? -1): \(receiver.errors.suffix(500))") }
        let written = writtenInode()
        if let written, UInt64(status.st_ino) != written {
            throw BenchmarkFailure("\(delivered) is inode \(status.st_ino), not the unnamed file \(written) the receiver wrote: the broker copied it instead of linking it")
        }
        try FileManager.default.removeItem(atPath: delivered)
        return (seconds, written != nil)
    }

    func stopReceiver() {
        NearbyBenchmark.stop(receiver)
    }

    func stop() {
        NearbyBenchmark.stop(receiver)
        NearbyBenchmark.stop(courierd)
        bus.stop()
    }
}

/// Debian's nginx, one process on the server's CPU, HTTPS with a P-256 certificate like the
/// receiver's, WebDAV `PUT` writing the request body to a temporary file (1 MiB buffer) and
/// renaming it into place.
final class Nginx: @unchecked Sendable {
    let process: BackgroundProcess
    let port: Int
    let root: URL

    init(work: URL, loopback: IsolatedLoopback?, placement: CPUPlacement) async throws {
        root = work.appendingPathComponent("root", isDirectory: true)
        for folder in ["root/upload", "body", "proxy", "fastcgi", "uwsgi", "scgi"] {
            try FileManager.default.createDirectory(at: work.appendingPathComponent(folder, isDirectory: true), withIntermediateDirectories: true)
        }
        let key = work.appendingPathComponent("key.pem").path, certificate = work.appendingPathComponent("certificate.pem").path
        let made = try await BackgroundProcess.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                                                        "-days", "2", "-subj", "/CN=courier-bench", "-keyout", key, "-out", certificate],
                                                   environment: ProcessInfo.processInfo.environment)
        guard made.status == 0 else { throw BenchmarkFailure("openssl req: \(made.errors)") }
        port = NearbyBenchmark.freePort()
        let w = work.path
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(w)/nginx.pid;
            error_log \(w)/error.log warn;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(w)/body;
                proxy_temp_path \(w)/proxy;
                fastcgi_temp_path \(w)/fastcgi;
                uwsgi_temp_path \(w)/uwsgi;
                scgi_temp_path \(w)/scgi;
                client_max_body_size 0;
                client_body_buffer_size 1m;
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(key);
                    ssl_protocols TLSv1.3;
                    root \(w)/root;
                    location /upload/ {
                        dav_methods PUT DELETE;
                        create_full_put_path on;
                    }
                }
            }
            """
        let file = work.appendingPathComponent("nginx.conf").path
        try configuration.write(toFile: file, atomically: true, encoding: .utf8)
        let command = placement.onServer(loopback.command("/usr/sbin/nginx", ["-c", file, "-p", w, "-e", "\(w)/error.log"]))
        process = try BackgroundProcess(command.executable, command.arguments, environment: ProcessInfo.processInfo.environment, outputIn: work, name: "nginx")
        // Ready when it answers (any status) over HTTPS.
        let probe = loopback.command("/usr/bin/curl", ["-sk", "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(port)/"])
        for _ in 0..<500 {
            let answer = try await BackgroundProcess.run(probe.executable, probe.arguments, environment: ProcessInfo.processInfo.environment)
            if answer.output != "000" { return }
            guard process.exitStatus == nil else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchmarkFailure("nginx did not start: \(process.errors) \((try? String(contentsOfFile: "\(w)/error.log", encoding: .utf8)) ?? "")")
    }

    /// One `PUT`, then an `fsync` of the stored file and its folder (durable, as the receiver's
    /// upload is); checks the stored copy's size, removes it; returns curl's time plus the fsync's.
    func upload(_ path: String, curl: Curl, overlap: CPUOverlap? = nil) async throws -> Double {
        let answer = try await curl.run(["-T", path, "https://127.0.0.1:\(port)/upload/upload.bin"], bodyFile: root.path + "/../put.out", overlap: overlap)
        guard answer.status == 201 || answer.status == 204 else { throw BenchmarkFailure("nginx PUT answered \(answer.status): \(answer.body.prefix(300))") }
        let stored = root.appendingPathComponent("upload/upload.bin").path
        let started = NearbyBenchmark.monotonic()
        for target in [stored, root.appendingPathComponent("upload").path] {
            let fd = open(target, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw BenchmarkFailure("cannot open \(target): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            guard fsync(fd) == 0 else { throw BenchmarkFailure("cannot fsync \(target): \(String(cString: strerror(errno)))") }
        }
        let synced = NearbyBenchmark.monotonic() - started
        let size = (try? FileManager.default.attributesOfItem(atPath: stored)[.size] as? NSNumber)?.int64Value
        let expected = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        guard size == expected else { throw BenchmarkFailure("nginx stored \(size ?? -1) bytes, not \(expected ?? -1)") }
        try FileManager.default.removeItem(atPath: stored)
        return answer.seconds + synced
    }

    /// Moves nginx (one process, its only worker) onto `cpu`.
    func move(to cpu: Int) async throws {
        let moved = try await BackgroundProcess.run("/usr/bin/taskset", ["-pc", String(cpu), String(process.pid)], environment: ProcessInfo.processInfo.environment)
        guard moved.status == 0 else { throw BenchmarkFailure("cannot move nginx to CPU \(cpu): \(moved.errors)") }
    }

    func stop() {
        NearbyBenchmark.stop(process)
    }
}

/// A LocalSend receiver from PyPI (scripts/nearby-peers), in the loopback namespace on the
/// protocol's port and the server's CPU, accepting without asking; running from `init` to `stop()`.
final class PythonReceiver: @unchecked Sendable {
    enum Kind: String, CaseIterable {
        case localsendd
        case localsendCLI = "localsend-cli"
    }

    let kind: Kind
    let process: BackgroundProcess
    let downloads: URL
    let scratch: URL

    init(_ kind: Kind, work: URL, loopback: IsolatedLoopback, environment: [String: String], placement: CPUPlacement) async throws {
        self.kind = kind
        scratch = work
        downloads = work.appendingPathComponent("\(kind.rawValue)-downloads", isDirectory: true)
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let arguments: [String]
        switch kind {
        case .localsendd:
            arguments = ["--port", "53317", "--socket", work.appendingPathComponent("localsendd.sock").path, "--alias", "bench peer",
                         "--download-dir", downloads.path, "--unattended"]
        case .localsendCLI:
            arguments = ["receive", "--output", downloads.path, "--clean"]
        }
        let command = placement.onServer(loopback.command(try Self.program(kind.rawValue), arguments))
        let process = try BackgroundProcess(command.executable, command.arguments, environment: environment, outputIn: work, name: kind.rawValue)
        self.process = process
        // Ready when its HTTPS port answers info.
        let probe = loopback.command("/usr/bin/curl", ["-sk", "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:53317/api/localsend/v2/info"])
        for _ in 0..<500 where process.exitStatus == nil {
            if try await BackgroundProcess.run(probe.executable, probe.arguments, environment: environment).output == "200" { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        stop()
        throw BenchmarkFailure("\(kind.rawValue) did not start: \(process.errors.suffix(400))")
    }

    static func program(_ name: String) throws -> String {
        let folder = ProcessInfo.processInfo.environment["COURIER_NEARBY_PEERS"] ?? FileManager.default.currentDirectoryPath + "/.build/nearby-peers"
        let path = folder + "/bin/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else { throw BenchmarkFailure("\(path) is missing: run scripts/nearby-peers") }
        return path
    }

    /// Uploads `path` once, checks the received size, removes it; returns curl's time.
    func upload(_ path: String, curl: Curl, overlap: CPUOverlap? = nil) async throws -> Double {
        let seconds = try await curl.localSendUpload(path, name: "upload.bin", to: "https://127.0.0.1:53317/api/localsend/v2/", pin: nil, scratch: scratch, overlap: overlap)
        let stored = downloads.appendingPathComponent("upload.bin").path
        let size = (try? FileManager.default.attributesOfItem(atPath: stored)[.size] as? NSNumber)?.int64Value
        let expected = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        guard size == expected else { throw BenchmarkFailure("\(kind.rawValue) stored \(size ?? -1) bytes, not \(expected ?? -1)") }
        try FileManager.default.removeItem(atPath: stored)
        return seconds
    }

    func stop() {
        NearbyBenchmark.stop(process)
        try? FileManager.default.removeItem(at: downloads)
    }
}

/// How much of one upload the client and the server spent on the same CPU: the CPU each last ran
/// on (field 39 of `/proc/PID/stat`), sampled every 5 ms on a thread of its own from `watch` until
/// `stop`. With a free placement it tells which rounds the scheduler put both on one CPU.
final class CPUOverlap: @unchecked Sendable {
    private let server: Int32
    private let lock = NSLock()
    private var client: Int32?
    private var running = true
    private var same = 0, samples = 0

    init(server: Int32) {
        self.server = server
    }

    func watch(client: Int32) {
        lock.withLock { self.client = client }
        Thread.detachNewThread { [self] in
            while sample() { Thread.sleep(forTimeInterval: 0.005) }
        }
    }

    private func sample() -> Bool {
        guard let client = lock.withLock({ self.client }) else { return false }
        let cpus = (Self.processor(client), Self.processor(server))
        return lock.withLock {
            if let a = cpus.0, let b = cpus.1 {
                samples += 1
                if a == b { same += 1 }
            }
            return running
        }
    }

    /// Stops sampling; the share (0…1) of samples with both on one CPU, nil without samples.
    func stop() -> Double? {
        lock.withLock {
            running = false
            return samples == 0 ? nil : Double(same) / Double(samples)
        }
    }

    /// The CPU `pid` last ran on.
    static func processor(_ pid: Int32) -> Int? {
        guard let line = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = line.lastIndex(of: ")") else { return nil }
        // Fields from the third (the state) on; the CPU is field 39.
        let fields = line[line.index(after: end)...].split(separator: " ")
        return fields.count > 36 ? Int(fields[36]) : nil
    }
}

/// Where the benchmark's processes run: `curl` on the client's CPU, every server under test on
/// the server's (`taskset -c`), or wherever the scheduler puts them.
struct CPUPlacement: CustomStringConvertible {
    let client: Int?
    let server: Int?

    /// `split` (client CPU 0, server CPU 1; free on a machine with one CPU), `same` (both on CPU
    /// 1) or `free`; nil for another name.
    init?(_ name: String) {
        let twoCPUs = ProcessInfo.processInfo.activeProcessorCount >= 2
        switch name {
        case "split": (client, server) = twoCPUs ? (0, 1) : (nil, nil)
        case "same": (client, server) = twoCPUs ? (1, 1) : (nil, nil)
        case "free": (client, server) = (nil, nil)
        default: return nil
        }
    }

    var description: String {
        switch (client, server) {
        case (let client?, let server?) where client != server: "curl on CPU \(client), the server under test on CPU \(server) (taskset)"
        case (let client?, _): "curl and the server under test both on CPU \(client) (taskset)"
        default: "left to the scheduler"
        }
    }

    func onClient(_ command: (executable: String, arguments: [String])) -> (executable: String, arguments: [String]) {
        Self.pinned(command, to: client)
    }

    func onServer(_ command: (executable: String, arguments: [String])) -> (executable: String, arguments: [String]) {
        Self.pinned(command, to: server)
    }

    private static func pinned(_ command: (executable: String, arguments: [String]), to cpu: Int?) -> (executable: String, arguments: [String]) {
        guard let cpu else { return command }
        return ("/usr/bin/taskset", ["-c", String(cpu), command.executable] + command.arguments)
    }
}

/// The receiver's resident set, sampled every 10 ms on a thread of its own from `start()` until
/// `stop()`; and, until it is seen, the inode of the unnamed file it writes in the Inbox (a
/// descriptor `<inbox>/#<inode> (deleted)` in `/proc/PID/fd`).
final class RSSSampler: @unchecked Sendable {
    private let pid: Int32
    private let inbox: String
    private let lock = NSLock()
    private var running = true
    private var highest: Int
    private var inode: UInt64?
    let before: Int

    init(pid: Int32, watching inbox: String) {
        self.pid = pid
        self.inbox = inbox
        before = Self.rss(pid)
        highest = before
    }

    func start() {
        Thread.detachNewThread { [self] in
            while sample() { Thread.sleep(forTimeInterval: 0.01) }
        }
    }

    private func sample() -> Bool {
        let now = Self.rss(pid)
        let seen = lock.withLock { inode } == nil ? Self.unnamedFile(of: pid, in: inbox) : nil
        return lock.withLock {
            highest = max(highest, now)
            if let seen { inode = seen }
            return running
        }
    }

    /// Stops sampling; the growth (highest − before) in bytes and the unnamed file's inode.
    @discardableResult
    func stop() -> (growth: Int, inode: UInt64?) {
        let now = Self.rss(pid)
        return lock.withLock {
            running = false
            highest = max(highest, now)
            return (highest - before, inode)
        }
    }

    var growth: Int { lock.withLock { highest - before } }

    /// VmRSS of `pid` in bytes (0 when it has gone).
    static func rss(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// The inode of an unnamed file `pid` holds open in `folder`.
    static func unnamedFile(of pid: Int32, in folder: String) -> UInt64? {
        let prefix = folder + "/#", suffix = " (deleted)"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(entry)"),
                  target.hasPrefix(prefix), target.hasSuffix(suffix) else { continue }
            return UInt64(target.dropFirst(prefix.count).dropLast(suffix.count))
        }
        return nil
    }
}

/// How long a LocalSend peer in another namespace takes to list a receiver after its start.
enum DiscoveryTiming {
    enum Outcome {
        case measured([Double])
        case skipped(String)
    }

    /// Polls localsendd's control socket every 5 ms until a device with `alias` is listed; prints
    /// the `time.monotonic()` of that moment.
    static let watcher = #"""
    import sys, time
    from localsendd.client import Client
    socket_path, alias, deadline = sys.argv[1], sys.argv[2], time.monotonic() + float(sys.argv[3])
    client = Client(socket_path).connect()
    print("watching", flush=True)
    while time.monotonic() < deadline:
        if any(d.get("alias") == alias for d in client.call("list_devices")["devices"]):
            print(f"seen {time.monotonic():.6f}", flush=True)
            sys.exit(0)
        time.sleep(0.005)
    print("not seen", flush=True)
    sys.exit(1)
    """#

    static func measure(work: URL, environment: [String: String], starts: Int) async throws -> Outcome {
        let hosts: TestHosts
        switch await TestHosts.make() {
        case .success(let made): hosts = made
        case .failure(let why): return .skipped(why.reason)
        }
        var processes: [BackgroundProcess] = []
        defer {
            processes.reversed().forEach(NearbyBenchmark.stop)
            hosts.remove()
        }
        let socket = work.appendingPathComponent("discovery-localsendd.sock").path
        let daemon = try hosts.start(in: hosts.b, try PythonReceiver.program("localsendd"),
                                     ["--port", "53317", "--socket", socket, "--alias", "discovery peer", "--download-dir", work.appendingPathComponent("discovery-downloads").path, "--unattended"],
                                     environment: environment, outputIn: work, name: "discovery-localsendd")
        processes.append(daemon)
        for _ in 0..<1000 where !FileManager.default.fileExists(atPath: socket) && daemon.exitStatus == nil {
            try await Task.sleep(for: .milliseconds(10))
        }
        guard FileManager.default.fileExists(atPath: socket) else { return .skipped("localsendd did not start: \(daemon.errors.suffix(300))") }
        let script = work.appendingPathComponent("watch.py")
        try watcher.write(to: script, atomically: true, encoding: .utf8)

        var milliseconds: [Double] = []
        for start in 1...starts {
            let alias = "Courier bench \(start)"
            let watch = try BackgroundProcess(try PythonReceiver.program("python"), [script.path, socket, alias, "20"],
                                              environment: environment, outputIn: work, name: "watch-\(start)")
            _ = try await NearbyBenchmark.waitFor("(watching)", in: { watch.output }, while: { watch.exitStatus == nil })
            let started = NearbyBenchmark.monotonic()
            let receiver = try hosts.start(in: hosts.a, Products.path("courier-nearby"), ["receive", "--trusted-only", "--alias", alias],
                                           environment: environment, outputIn: work, name: "discovery-receiver-\(start)")
            let seen = Double(try await NearbyBenchmark.waitFor(#"seen ([0-9.]+)"#, in: { watch.output }, while: { watch.exitStatus == nil }))
            receiver.signal(SIGTERM)
            _ = await receiver.wait(timeout: .seconds(5))
            receiver.kill()
            guard let seen else { return .skipped("the watcher printed \(watch.output)") }
            milliseconds.append((seen - started) * 1000)
        }
        return .measured(milliseconds)
    }
}
