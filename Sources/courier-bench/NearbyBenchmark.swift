import BusTestSupport
import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier-bench nearby [--size-mib N] [--runs N] [--dir PATH]`: the LocalSend measurements, every
/// ratio against a baseline measured in the same run.
///
/// - **Upload** of one file (1 GiB by default) with `curl` over HTTPS on loopback into
///   `courier nearby receive` — `prepare-upload`, then `upload`, which answers only once the file
///   is in the app's Inbox, durable (the body streamed once into an unnamed file in the Inbox, which
///   `DropFiles` checks, `fsync`s and links) — against the same `curl` uploading the same bytes to
///   Debian's nginx (WebDAV `PUT`: the request body written to a temporary file, then renamed into
///   place), followed by an `fsync` of the stored file and its folder inside the timed window, so
///   that both sides are durable when the clock stops. Same client, same TLS 1.3 cipher
///   (`TLS_AES_256_GCM_SHA384`, forced on both), same P-256 certificate type, no `Expect:
///   100-continue` wait, nginx's body buffer at 1 MiB like the receiver's writes. `runs` rounds
///   (at least 5), order alternating, after an untimed warm-up (which also has the broker launch
///   the app); a `sync` (untimed) between uploads. Each median is printed with its spread (the
///   slowest and fastest round, and (max − min) / median). Targets: courier ≥ 1.0 × nginx,
///   ≥ 1.3 × localsendd (medians).
/// - **Memory**: the receiver's RSS sampled every 10 ms during each upload; growth = the highest
///   sample − the RSS just before. Target: < 32 MiB.
/// - **Python receivers**: the same `curl` into `localsendd` (unattended) and `localsend-cli
///   receive` (PyPI, `scripts/nearby-peers`), one upload each. Target: courier faster than both.
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

    static func run(arguments: [String]) async throws {
        var sizeMiB = 1024, runs = 5
        var directory = NSTemporaryDirectory()
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--size-mib": sizeMiB = Int(iterator.next() ?? "") ?? sizeMiB
            case "--runs": runs = max(5, Int(iterator.next() ?? "") ?? runs)
            case "--dir": directory = iterator.next() ?? directory
            default: print("usage: courier-bench nearby [--size-mib N] [--runs N] [--dir PATH]"); return
            }
        }
        for tool in ["/usr/sbin/nginx", "/usr/bin/curl", "/usr/bin/openssl"] where !FileManager.default.isExecutableFile(atPath: tool) {
            print("nearby benchmark skipped: \(tool) is missing (scripts/bootstrap installs nginx, curl and openssl)")
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
        print("nearby benchmark: \(sizeMiB) MiB uploaded with curl over HTTPS (\(cipher)) on \(loopback == nil ? "the host's loopback (no network namespace: not root)" : "the loopback of a network namespace of its own"), \(runs) runs each, alternating")
        print("  machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(loadAverage()) at start (shared with other builds: absolute figures vary, ratios are from this run)")

        let stack = try await CourierStack(work: work, loopback: loopback)
        defer { stack.stop() }
        let nginx = try await Nginx(work: work.appendingPathComponent("nginx", isDirectory: true), loopback: loopback)
        defer { nginx.stop() }
        let curl = Curl(loopback: loopback, environment: stack.environment)

        // Warm-up, untimed: the broker launches the app at the first drop; TLS, page cache.
        let warm = work.appendingPathComponent("warm.bin").path
        try DropBenchmark.makeSource(warm, bytes: 1 << 20)
        _ = try await stack.upload(warm, name: "warm.bin", curl: curl)
        _ = try await nginx.upload(warm, curl: curl)

        var courierSeconds: [Double] = [], nginxSeconds: [Double] = [], growth: [Int] = []
        for run in 1...runs {
            for contestant in run % 2 == 1 ? [0, 1] : [1, 0] {
                sync()
                if contestant == 0 {
                    let sampler = RSSSampler(pid: stack.receiver.pid)
                    sampler.start()
                    let seconds = try await stack.upload(source, name: "upload.bin", curl: curl)
                    growth.append(sampler.stop())
                    courierSeconds.append(seconds)
                } else {
                    nginxSeconds.append(try await nginx.upload(source, curl: curl))
                }
            }
            print(String(format: "  run %d: courier nearby receive %.0f MiB/s (RSS +%.1f MiB), nginx %.0f MiB/s", run,
                         Double(sizeMiB) / courierSeconds.last!, Double(growth.last!) / 1_048_576, Double(sizeMiB) / nginxSeconds.last!))
        }
        let courier = Double(sizeMiB) / DropBenchmark.median(courierSeconds)
        let baseline = Double(sizeMiB) / DropBenchmark.median(nginxSeconds)
        let courierSpread = Self.spread(courierSeconds, mib: sizeMiB), nginxSpread = Self.spread(nginxSeconds, mib: sizeMiB)
        let maxGrowth = Double(growth.max() ?? 0) / 1_048_576

        var peers: [(name: String, rate: Double?)] = []
        if let loopback {
            for peer in PythonReceiver.Kind.allCases {
                let rate: Double?
                do {
                    let seconds = try await PythonReceiver(peer, work: work, loopback: loopback, environment: stack.environment).upload(source, curl: curl)
                    rate = Double(sizeMiB) / seconds
                } catch {
                    print("  \(peer.rawValue): not measured: \(error)")
                    rate = nil
                }
                peers.append((peer.rawValue, rate))
            }
        }
        stack.stopReceiver()

        let discovery = try await DiscoveryTiming.measure(work: work, environment: stack.environment, starts: 3)

        print("results (MiB/s, medians of \(runs) runs; load average \(loadAverage()) at the end):")
        print(String(format: "  courier nearby receive  %5.0f  %@  curl → HTTPS → unnamed file in the Inbox, linked by DropFiles (durable: fsync)", courier, courierSpread))
        print(String(format: "  nginx (Debian)          %5.0f  %@  curl → HTTPS → WebDAV PUT to a file, then fsync (durable)", baseline, nginxSpread))
        for peer in peers {
            print("  \(peer.name.padding(toLength: 23, withPad: " ", startingAt: 0)) \(peer.rate.map { String(format: "%5.0f", $0) } ?? "    –")  curl → HTTPS → its download folder (Python)")
        }
        print(String(format: "  ratio courier / nginx          = %.2f  (target >= 1.00)", courier / baseline))
        for peer in peers {
            if let rate = peer.rate {
                print(String(format: "  ratio courier / %@ = %.2f  (target %@)", peer.name.padding(toLength: 13, withPad: " ", startingAt: 0), courier / rate,
                             peer.name == "localsendd" ? ">= 1.30" : "> 1.00: faster than the Python receivers"))
            }
        }
        if peers.isEmpty { print("  Python receivers: skipped (they announce by multicast: they run only in a network namespace, which needs root)") }
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

/// `curl` as both uploads use it, inside the loopback namespace when there is one.
struct Curl {
    let loopback: IsolatedLoopback?
    let environment: [String: String]

    /// Runs curl; returns the HTTP status, curl's own `time_total` and the body.
    func run(_ arguments: [String], bodyFile: String) async throws -> (status: Int, seconds: Double, body: String) {
        let command = loopback.command("/usr/bin/curl", ["-sk", "--http1.1", "--tls13-ciphers", NearbyBenchmark.cipher, "-H", "Expect:",
                                                         "-o", bodyFile, "-w", "%{http_code} %{time_total}"] + arguments)
        let result = try await BackgroundProcess.run(command.executable, command.arguments, environment: environment)
        let fields = result.output.split(separator: " ")
        guard fields.count == 2, let status = Int(fields[0]), let seconds = Double(fields[1]) else {
            throw BenchmarkFailure("curl \(arguments.last ?? ""): \(result.output) \(result.errors)")
        }
        let body = (try? String(contentsOfFile: bodyFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: bodyFile)
        return (status, seconds, body)
    }

    /// `prepare-upload` of one file, then its `upload` (timed); the LocalSend v2 exchange.
    func localSendUpload(_ path: String, name: String, to base: String, pin: String?, scratch: URL) async throws -> Double {
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
        let upload = try await run(["-X", "POST", "-T", path, base + "upload?sessionId=\(session)&fileId=f1&token=\(token)"], bodyFile: json + ".upload")
        guard upload.status == 200 else { throw BenchmarkFailure("upload at \(base) answered \(upload.status): \(upload.body.prefix(300))") }
        return upload.seconds
    }
}

/// A private bus, courierd with one app that takes any file (the recorder app of
/// courier-test-app, launched by the broker), and `courier nearby receive --to` it in PIN mode.
final class CourierStack: @unchecked Sendable {
    let bus: PrivateBus
    let environment: [String: String]
    let courierd: BackgroundProcess
    let receiver: BackgroundProcess
    let port: Int
    let work: URL
    var inbox: URL { work.appendingPathComponent("data/courier/containers/\(NearbyBenchmark.bundleID)/Documents/Inbox", isDirectory: true) }

    init(work: URL, loopback: IsolatedLoopback?) async throws {
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
        courierd = try BackgroundProcess(Products.path("courierd"), ["--manifests", manifests.path, "--log-level", "warning"],
                                         environment: environment, outputIn: work, name: "courierd")
        let client = BrokerClient(connection: try bus.connect())
        for _ in 0..<500 where !(await client.brokerIsRunning()) { try await Task.sleep(for: .milliseconds(10)) }
        client.connection.close()
        let command = loopback.command(Products.path("courier-nearby"), ["receive", "--to", NearbyBenchmark.bundleID, "--pin", NearbyBenchmark.pin,
                                                                         "--bind", "127.0.0.1", "--port", "0", "--no-discovery"])
        receiver = try BackgroundProcess(command.executable, command.arguments, environment: environment, outputIn: work, name: "receiver")
        let receiver = receiver
        port = Int(try await NearbyBenchmark.waitFor(#"on https://127\.0\.0\.1:(\d+)"#, in: { receiver.errors }, while: { receiver.exitStatus == nil })) ?? 0
    }

    /// One upload into the Inbox; checks the delivered copy's size, removes it; returns curl's time.
    func upload(_ path: String, name: String, curl: Curl) async throws -> Double {
        let seconds = try await curl.localSendUpload(path, name: name, to: "https://127.0.0.1:\(port)/api/localsend/v2/", pin: NearbyBenchmark.pin, scratch: work)
        let delivered = inbox.appendingPathComponent(name).path
        let size = (try? FileManager.default.attributesOfItem(atPath: delivered)[.size] as? NSNumber)?.int64Value
        let expected = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        guard size == expected else { throw BenchmarkFailure("\(delivered) has \(size.map(String.init) ?? "no") bytes, not \(expected ?? -1): \(receiver.errors.suffix(500))") }
        try FileManager.default.removeItem(atPath: delivered)
        return seconds
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

/// Debian's nginx, one process, HTTPS with a P-256 certificate like the receiver's, WebDAV `PUT`
/// writing the request body to a temporary file (1 MiB buffer) and renaming it into place.
final class Nginx: @unchecked Sendable {
    let process: BackgroundProcess
    let port: Int
    let root: URL

    init(work: URL, loopback: IsolatedLoopback?) async throws {
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
        let command = loopback.command("/usr/sbin/nginx", ["-c", file, "-p", w, "-e", "\(w)/error.log"])
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
    func upload(_ path: String, curl: Curl) async throws -> Double {
        let answer = try await curl.run(["-T", path, "https://127.0.0.1:\(port)/upload/upload.bin"], bodyFile: root.path + "/../put.out")
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

    func stop() {
        NearbyBenchmark.stop(process)
    }
}

/// A LocalSend receiver from PyPI (scripts/nearby-peers), in the loopback namespace on the
/// protocol's port, accepting without asking.
struct PythonReceiver {
    enum Kind: String, CaseIterable {
        case localsendd
        case localsendCLI = "localsend-cli"
    }

    let kind: Kind
    let work: URL
    let loopback: IsolatedLoopback
    let environment: [String: String]

    init(_ kind: Kind, work: URL, loopback: IsolatedLoopback, environment: [String: String]) {
        self.kind = kind
        self.work = work
        self.loopback = loopback
        self.environment = environment
    }

    static func program(_ name: String) throws -> String {
        let folder = ProcessInfo.processInfo.environment["COURIER_NEARBY_PEERS"] ?? FileManager.default.currentDirectoryPath + "/.build/nearby-peers"
        let path = folder + "/bin/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else { throw BenchmarkFailure("\(path) is missing: run scripts/nearby-peers") }
        return path
    }

    /// Starts it, uploads `path` once, checks the received size, stops it; returns curl's time.
    func upload(_ path: String, curl: Curl) async throws -> Double {
        let downloads = work.appendingPathComponent("\(kind.rawValue)-downloads", isDirectory: true)
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: downloads) }
        let arguments: [String]
        switch kind {
        case .localsendd:
            arguments = ["--port", "53317", "--socket", work.appendingPathComponent("localsendd.sock").path, "--alias", "bench peer",
                         "--download-dir", downloads.path, "--unattended"]
        case .localsendCLI:
            arguments = ["receive", "--output", downloads.path, "--clean"]
        }
        let command = loopback.command(try Self.program(kind.rawValue), arguments)
        let process = try BackgroundProcess(command.executable, command.arguments, environment: environment, outputIn: work, name: kind.rawValue)
        defer { NearbyBenchmark.stop(process) }
        // Ready when its HTTPS port answers info.
        let probe = loopback.command("/usr/bin/curl", ["-sk", "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:53317/api/localsend/v2/info"])
        var ready = false
        for _ in 0..<500 where process.exitStatus == nil {
            if try await BackgroundProcess.run(probe.executable, probe.arguments, environment: environment).output == "200" { ready = true; break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard ready else { throw BenchmarkFailure("\(kind.rawValue) did not start: \(process.errors.suffix(400))") }
        let seconds = try await curl.localSendUpload(path, name: "upload.bin", to: "https://127.0.0.1:53317/api/localsend/v2/", pin: nil, scratch: work)
        let size = (try? FileManager.default.attributesOfItem(atPath: downloads.appendingPathComponent("upload.bin").path)[.size] as? NSNumber)?.int64Value
        let expected = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        guard size == expected else { throw BenchmarkFailure("\(kind.rawValue) stored \(size ?? -1) bytes, not \(expected ?? -1)") }
        return seconds
    }
}

/// The receiver's resident set, sampled every 10 ms on a thread of its own from `start()` until
/// `stop()`.
final class RSSSampler: @unchecked Sendable {
    private let pid: Int32
    private let lock = NSLock()
    private var running = true
    private var highest: Int
    let before: Int

    init(pid: Int32) {
        self.pid = pid
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
        return lock.withLock {
            highest = max(highest, now)
            return running
        }
    }

    /// Stops sampling; the growth (highest − before) in bytes.
    func stop() -> Int {
        let now = Self.rss(pid)
        return lock.withLock {
            running = false
            highest = max(highest, now)
            return highest - before
        }
    }

    /// VmRSS of `pid` in bytes (0 when it has gone).
    static func rss(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
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
