import BusTestSupport
import Foundation
import Testing

/// Share via link (docs/share.md): `courier nearby serve` in one network namespace of the test's
/// own (host A, the server on its veth address), a real headless Chromium (Debian's, driven over
/// its DevTools protocol by Tests/Fixtures/browser-download.mjs under Node) and `curl` in the
/// other (host B), as a phone on the same network would be. The namespaces and veth ends are
/// named with `link`.
@Suite("Share via link", .serialized)
struct LinkShareTests {
    /// The fixture (a private bus and courierd, for the share sheet), the two hosts, and the
    /// programs from host B.
    final class Network: @unchecked Sendable {
        let fixture: NearbyFixture
        let hosts: TestHosts
        private var processes: [BackgroundProcess] = []

        /// The network, or the test skipped saying what is missing (Chromium, curl, namespaces).
        static func make() async throws -> Network {
            if let missing = ["/usr/bin/chromium", "/usr/bin/curl"].first(where: { !FileManager.default.isExecutableFile(atPath: $0) }) {
                try Test.cancel("skipped: \(missing) is missing (scripts/bootstrap installs chromium, nodejs and curl)")
            }
            switch await TestHosts.make(named: "link") {
            case .success(let hosts):
                do {
                    return Network(fixture: try NearbyFixture(), hosts: hosts)
                } catch {
                    hosts.remove()
                    throw error
                }
            case .failure(let why): try Test.cancel("skipped: \(why)")
            }
        }

        private init(fixture: NearbyFixture, hosts: TestHosts) {
            self.fixture = fixture
            self.hosts = hosts
        }

        /// `courier nearby serve FILES… --bind A` (plus `extra`) in host A; returns it, the URL
        /// printed and the PIN.
        func serve(_ files: [String], _ extra: [String] = []) async throws -> (process: BackgroundProcess, url: String, pin: String) {
            let server = try hosts.start(in: hosts.a, Products.path("courier-nearby"), ["serve"] + files + ["--bind", hosts.addressA, "--port", "0"] + extra,
                                         environment: fixture.environment, outputIn: fixture.root, name: "serve-\(UUID().uuidString.prefix(6))")
            processes.append(server)
            return try await started(server)
        }

        /// Waits (bounded) for the line with the address and the PIN.
        func started(_ process: BackgroundProcess) async throws -> (process: BackgroundProcess, url: String, pin: String) {
            for _ in 0..<1500 {
                let output = process.output + process.errors
                // The person's lines, or `--json`'s object.
                if let url = output.firstMatch(of: /(?:Open |"urls":\[")(https?:\/\/[0-9.]+:[0-9]+\/)/)?.1,
                   let pin = output.firstMatch(of: /(?:the PIN is |"pin":")([0-9]+)/)?.1 {
                    return (process, String(url), String(pin))
                }
                if process.exitStatus != nil { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("the share did not start: \(process.output) \(process.errors)")
            throw CancellationError()
        }

        func track(_ process: BackgroundProcess) { processes.append(process) }

        /// A program in host B, to its end (at most 120 s).
        func fromB(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
            let child = try hosts.start(in: hosts.b, executable, arguments, environment: fixture.environment, outputIn: fixture.root, name: "b-\(UUID().uuidString.prefix(8))")
            if await child.wait(timeout: .seconds(120)) == nil { child.kill() }
            return (await child.wait(), child.output, child.errors)
        }

        /// `curl` from host B (certificate not checked: the share's is self-signed); the status
        /// line and headers, then the body, in `output`.
        func curl(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
            try await fromB("/usr/bin/curl", ["-sk", "--max-time", "30", "-i"] + arguments)
        }

        /// The page as Chromium has it after its script ran (`--dump-dom`). Headless Chromium now
        /// and then exits 0 having printed nothing (seen once in many runs on a loaded machine):
        /// such a run is tried again, up to three times; a page that never comes fails.
        func dumpDOM(_ url: String) async throws -> String {
            var dump: (status: Int32, output: String, errors: String) = (0, "", "")
            for _ in 0..<3 {
                let profile = fixture.root.appendingPathComponent("chromium-\(UUID().uuidString.prefix(6))").path
                dump = try await fromB("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--ignore-certificate-errors", "--no-first-run",
                                                             "--user-data-dir=\(profile)", "--virtual-time-budget=15000", "--dump-dom", url])
                if dump.status != 0 || !dump.output.isEmpty { break }
            }
            try #require(dump.status == 0 && dump.output.contains("</html>"), "chromium --dump-dom failed (\(dump.status)): \(dump.output.suffix(500)) \(dump.errors.suffix(3000))")
            return dump.output
        }

        /// The page opened in Chromium, every file's link clicked, the downloads awaited.
        func browserDownload(_ url: String, typing pin: String? = nil) async throws -> BrowserRun {
            let folder = fixture.root.appendingPathComponent("downloads-\(UUID().uuidString.prefix(6))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let script = NearbyFixture.packageRoot.appendingPathComponent("Tests/Fixtures/browser-download.mjs").path
            let probe = try? await BackgroundProcess.run("/usr/bin/node", [script, "--probe"], environment: fixture.environment)
            if probe?.status != 0 {
                try Test.cancel("skipped: /usr/bin/node is missing or has no WebSocket client (Node 22, or Debian's node-ws, which scripts/bootstrap installs)")
            }
            let run = try await fromB("/usr/bin/node", [script, url, folder.path] + (pin.map { [$0] } ?? []))
            try #require(run.status == 0, "the browser run failed: \(run.output) \(run.errors.suffix(2000))")
            return try JSONDecoder().decode(BrowserRun.self, from: Data((run.output.split(separator: "\n").last ?? "").utf8))
        }

        /// The share's process ends by itself (exit 0, saying so), and then a connection is refused.
        func expectEnded(_ server: BackgroundProcess, url: String, pin: String) async throws {
            #expect(await server.wait(timeout: .seconds(60)) == 0, "\(server.errors)")
            #expect(server.errors.contains("the share has ended"), "\(server.errors)")
            let after = try await curl(["-X", "POST", url + "api/localsend/v2/prepare-download?pin=" + pin])
            #expect(after.status == 7, "curl exit 7 is 'connection refused': \(after)")
        }

        func tearDown() {
            for process in processes { NearbyFixture.stop(process) }
            fixture.tearDown()
            hosts.remove()
        }
    }

    struct BrowserRun: Decodable {
        struct Download: Decodable { var suggested: String; var file: String; var state: String }
        var status: String
        var names: [String]
        var downloads: [Download]
    }

    static let hostileName = "<img src=x onerror=alert(1)>.txt"

    /// Three files, one of 3 MiB of random bytes and one whose name is markup.
    static func files(_ fixture: NearbyFixture) throws -> [String] {
        var random = SystemRandomNumberGenerator()
        let big = Data((0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
        return [try fixture.file("photo.bin", big),
                try fixture.file(hostileName, Data("not markup\n".utf8)),
                try fixture.file("notes é.txt", Data("apples\npears\n".utf8))]
    }

    @Test func aBrowserInAnotherNamespaceListsTheItemsDownloadsThemByteForByteAndNothingIsServedAfterTheShareEnds() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let files = try Self.files(network.fixture)
        let (server, url, pin) = try await network.serve(files)
        #expect(url.contains(network.hosts.addressA))

        // The page, after its script ran: the names in order, as text (the markup one escaped,
        // no element made of it).
        let dom = try await network.dumpDOM(url + "?pin=" + pin)
        #expect(dom.contains("3 files from"), "\(dom)")
        #expect(dom.contains("&lt;img src=x onerror=alert(1)&gt;.txt"), "\(dom)")
        #expect(!dom.contains("<img"), "\(dom)")
        let order = ["photo.bin", "&lt;img src=x", "notes é.txt"].compactMap { dom.range(of: ">" + $0)?.lowerBound }
        #expect(order.count == 3 && order == order.sorted(), "\(dom)")

        // A wrong PIN in the address: told so, nothing listed.
        let wrong = try await network.dumpDOM(url + "?pin=00000000")
        #expect(wrong.contains("Wrong PIN."), "\(wrong)")
        #expect(!wrong.contains("photo.bin") && !wrong.contains("<li>"), "\(wrong)")

        // The PIN typed into the page's form, every link clicked: each download is the file.
        var run = try await network.browserDownload(url, typing: pin)
        for _ in 0..<5 where run.status.hasPrefix("A wrong PIN was tried") {
            // The wrong PIN above holds PINs back for a second.
            try await Task.sleep(for: .seconds(1))
            run = try await network.browserDownload(url, typing: pin)
        }
        #expect(run.status.hasPrefix("3 files from"), "\(run)")
        #expect(run.names == files.map { URL(fileURLWithPath: $0).lastPathComponent }, "\(run)")
        #expect(run.downloads.count == 3 && run.downloads.allSatisfy { $0.state == "completed" }, "\(run)")
        #expect(Set(run.downloads.map { NearbyFixture.sha256($0.file) }) == Set(files.map { NearbyFixture.sha256($0) }), "\(run)")
        #expect(run.downloads.contains { $0.suggested == "notes é.txt" }, "\(run)")

        // Ctrl-C ends the share: nothing answers any more.
        server.signal(SIGINT)
        try await network.expectEnded(server, url: url, pin: pin)
    }

    @Test func wrongPINsGetNothingAndTheBudgetIsTheShareAsAWhole() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let files = try Self.files(network.fixture)
        let (server, url, pin) = try await network.serve(files)
        let prepare = url + "api/localsend/v2/prepare-download"

        // A session a right PIN opened, for the address that opened it only.
        let good = try await network.curl(["-X", "POST", prepare + "?pin=" + pin])
        let session = try #require(good.output.firstMatch(of: /"sessionId":"([0-9a-f]+)"/)?.1, "\(good)")
        let fileID = try #require(good.output.firstMatch(of: /"id":"([0-9a-f]+)"/)?.1, "\(good)")

        // No PIN, then ten wrong ones, a second apart (the back-off answers 429 within it).
        let missing = try await network.curl(["-X", "POST", prepare])
        #expect(missing.output.hasPrefix("HTTP/1.1 401") && missing.output.contains("PIN required"), "\(missing)")
        var answers: [String] = []
        for guess in 0..<10 {
            var answer = try await network.curl(["-X", "POST", prepare + "?pin=\(10_000_000 + guess)"])
            for _ in 0..<20 where answer.output.hasPrefix("HTTP/1.1 429") {
                try await Task.sleep(for: .milliseconds(300))
                answer = try await network.curl(["-X", "POST", prepare + "?pin=\(10_000_000 + guess)"])
            }
            answers.append(String(answer.output.prefix(12)))
            #expect(!answer.output.contains("sessionId") && !answer.output.contains("photo.bin"), "\(answer)")
        }
        #expect(answers.allSatisfy { $0 == "HTTP/1.1 401" }, "\(answers)")
        // The budget is spent: the right PIN gets nothing now, from anyone.
        try await Task.sleep(for: .milliseconds(1100))
        let spent = try await network.curl(["-X", "POST", prepare + "?pin=" + pin])
        #expect(spent.output.hasPrefix("HTTP/1.1 403") && spent.output.contains("accepts no more PINs"), "\(spent)")
        #expect(server.errors.contains("10 wrong PINs have been tried"), "\(server.errors)")

        // The session opened before still downloads (from its address), and nobody else can use it:
        // host A's own address is another address.
        let download = "\(url)api/localsend/v2/download?sessionId=\(session)&fileId=\(fileID)"
        let fetched = try await network.fromB("/usr/bin/curl", ["-sk", "--max-time", "30", "-o", "/dev/null", "-w", "%{http_code}", download])
        #expect(fetched.output == "200", "\(fetched)")
        let stolen = try await BackgroundProcess.run(IsolatedLoopback.enter(network.hosts.a, "/usr/bin/curl", ["-sk", "-i", download]).executable,
                                                     IsolatedLoopback.enter(network.hosts.a, "/usr/bin/curl", ["-sk", "-i", download]).arguments,
                                                     environment: network.fixture.environment)
        #expect(stolen.output.hasPrefix("HTTP/1.1 403") && !stolen.output.contains("octet-stream"), "\(stolen.output)")
        // A made-up session gets nothing either.
        let madeUp = try await network.curl(["\(url)api/localsend/v2/download?sessionId=\(String(repeating: "0", count: 32))&fileId=\(fileID)"])
        #expect(madeUp.output.hasPrefix("HTTP/1.1 403"), "\(madeUp)")
    }

    @Test func aLocalSendClientFetchesThroughPrepareDownloadAndDownloadAndOnlyWhatWasShared() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let files = try Self.files(network.fixture)
        let (_, url, pin) = try await network.serve(files)
        let api = url + "api/localsend/v2/"

        // A client following the protocol's section 5 (curl: no packaged LocalSend client
        // downloads): info says the download API is on, prepare-download lists, download fetches.
        let info = try await network.curl([api + "info"])
        #expect(info.output.contains("\"download\":true"), "\(info)")
        let listed = try await network.curl(["-X", "POST", api + "prepare-download?pin=" + pin])
        let body = try #require(listed.output.range(of: "\r\n\r\n").map { String(listed.output[$0.upperBound...]) })
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "\(listed)")
        let session = try #require(answer["sessionId"] as? String)
        let entries = try #require(answer["files"] as? [String: [String: Any]])
        #expect(Set(entries.values.compactMap { $0["fileName"] as? String }) == Set(files.map { URL(fileURLWithPath: $0).lastPathComponent }))
        for (id, entry) in entries {
            let name = try #require(entry["fileName"] as? String)
            let target = network.fixture.root.appendingPathComponent("fetched-\(id)").path
            let fetched = try await network.fromB("/usr/bin/curl", ["-sk", "--max-time", "30", "-o", target, "-D", "-", "\(api)download?sessionId=\(session)&fileId=\(id)"])
            #expect(fetched.status == 0 && fetched.output.contains("content-disposition: attachment"), "\(fetched)")
            #expect(NearbyFixture.sha256(target) == files.first { $0.hasSuffix("/" + name) }.flatMap(NearbyFixture.sha256), "\(name)")
            #expect(entry["size"] as? Int == (try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int))
        }
        // A reload: the session back without the PIN, from the same address.
        let again = try await network.curl(["-X", "POST", api + "prepare-download?sessionId=" + session])
        #expect(again.output.hasPrefix("HTTP/1.1 200") && again.output.contains(session), "\(again)")

        // Nothing but the shared files: no path, no traversal, no other route.
        let someID = try #require(entries.keys.first)
        for probe in ["\(api)download?sessionId=\(session)&fileId=../../etc/passwd", "\(api)download?sessionId=\(session)&fileId=\(someID)/..",
                      url + "etc/passwd", url + "../../../../etc/passwd", url + "%2e%2e/%2e%2e/etc/passwd", url + "api/localsend/v2/upload"] {
            let answer = try await network.curl(["--path-as-is", probe])
            #expect(answer.output.hasPrefix("HTTP/1.1 404") || answer.output.hasPrefix("HTTP/1.1 405"), "\(probe): \(answer)")
            #expect(!answer.output.contains("root:"), "\(probe)")
        }

        // Plain HTTP to the HTTPS share: the page sends the browser to https://, the API says to use it.
        let plainPage = try await network.curl([url.replacingOccurrences(of: "https://", with: "http://")])
        #expect(plainPage.output.hasPrefix("HTTP/1.1 301") && plainPage.output.lowercased().contains("location: \(url)"), "\(plainPage)")
        let plainAPI = try await network.curl(["-X", "POST", api.replacingOccurrences(of: "https://", with: "http://") + "prepare-download?pin=" + pin])
        #expect(plainAPI.output.hasPrefix("HTTP/1.1 400") && plainAPI.output.contains("use https://") && !plainAPI.output.contains("sessionId"), "\(plainAPI)")
    }

    @Test func plainHTTPModeServesTheProtocolsHTTPAndWarns() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let files = try Self.files(network.fixture)
        let (server, url, pin) = try await network.serve([files[2]], ["--plain-http"])
        #expect(url.hasPrefix("http://"), "\(url)")
        #expect(server.errors.contains("plain HTTP is on"), "\(server.errors)")
        let dom = try await network.dumpDOM(url + "?pin=" + pin)
        #expect(dom.contains("1 file from") && dom.contains(">notes é.txt<"), "\(dom)")
    }

    @Test func aFileChangedAfterSharingIsRefusedAndOneRemovedIsServedAsShared() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let changed = try network.fixture.file("changed.txt", Data("first version\n".utf8))
        let removed = try network.fixture.file("removed.txt", Data("kept as shared\n".utf8))
        let (_, url, pin) = try await network.serve([changed, removed])
        try Data("first version, and more\n".utf8).write(to: URL(fileURLWithPath: changed))
        try FileManager.default.removeItem(atPath: removed)
        let listed = try await network.curl(["-X", "POST", url + "api/localsend/v2/prepare-download?pin=" + pin])
        let session = try #require(listed.output.firstMatch(of: /"sessionId":"([0-9a-f]+)"/)?.1, "\(listed)")
        for (name, expected) in [("changed.txt", "HTTP/1.1 410"), ("removed.txt", "HTTP/1.1 200")] {
            let id = try #require(listed.output.firstMatch(of: try Regex("\"([0-9a-f]{32})\":\\{[^}]*\"fileName\":\"\(name)\"")).map { String($0.output[1].substring ?? "") }, "\(listed)")
            let fetched = try await network.curl(["\(url)api/localsend/v2/download?sessionId=\(session)&fileId=\(id)"])
            #expect(fetched.output.hasPrefix(expected), "\(name): \(fetched)")
            if name == "removed.txt" { #expect(fetched.output.hasSuffix("kept as shared\n"), "\(fetched)") }
        }
    }

    @Test func aFileWrittenToDuringItsDownloadBreaksTheDownloadOff() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        // Large beside what socket buffers hold in flight (a few MiB each way).
        let size = 64 << 20
        let path = try network.fixture.file("growing.bin", Data(repeating: 0x5A, count: size))
        let (server, url, pin) = try await network.serve([path])
        let listed = try await network.curl(["-X", "POST", url + "api/localsend/v2/prepare-download?pin=" + pin])
        let session = try #require(listed.output.firstMatch(of: /"sessionId":"([0-9a-f]+)"/)?.1, "\(listed)")
        let fileID = try #require(listed.output.firstMatch(of: /"id":"([0-9a-f]+)"/)?.1, "\(listed)")
        let target = network.fixture.root.appendingPathComponent("partial.bin").path
        // 8 MiB/s: the download would take 8 s; the file is written to once 1 MiB has arrived.
        let download = try network.hosts.start(in: network.hosts.b, "/usr/bin/curl",
                                               ["-sk", "--limit-rate", "8M", "-o", target, "\(url)api/localsend/v2/download?sessionId=\(session)&fileId=\(fileID)"],
                                               environment: network.fixture.environment, outputIn: network.fixture.root, name: "slow-download")
        network.track(download)
        for _ in 0..<500 where ((try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0) < (1 << 20) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("more".utf8))
        try handle.close()
        let status = await download.wait(timeout: .seconds(60))
        // curl: 18 is "transfer closed with outstanding read data remaining".
        #expect(status == 18, "\(String(describing: status)) \(download.errors)")
        let got = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
        #expect(got < size, "\(got)")
        #expect(server.errors.contains("broke off"), "\(server.errors)")
    }

    @Test func theTimeLimitEndsTheShare() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let file = try network.fixture.file("brief.txt", Data("soon gone\n".utf8))
        let (server, url, pin) = try await network.serve([file], ["--time-limit", "2", "--json"])
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(server.output.utf8)) as? [String: Any], "\(server.output)")
        #expect(printed["pin"] as? String == pin && printed["urls"] as? [String] == [url] && printed["files"] as? [String] == [file], "\(printed)")
        #expect((printed["fingerprint"] as? String)?.count == 64 && printed["ends"] is String, "\(printed)")
        try await network.expectEnded(server, url: url, pin: pin)
    }

    /// Refused before anything listens, each saying what was wrong and what to do (on loopback:
    /// nothing here reaches the network).
    @Test func badInputIsRefusedBeforeAnythingIsServed() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        let good = try fixture.file("fine.txt", Data("fine\n".utf8))
        let bidi = try fixture.file("evil\u{202E}txt.exe", Data("x".utf8))
        // A port held for the duration of the check: a listening socket of this test's own.
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, length) == 0 && listen(holder, 1) == 0 && getsockname(holder, $0, &length) == 0 } }
        try #require(bound, "cannot hold a port: \(String(cString: strerror(errno)))")
        let heldPort = String(UInt16(bigEndian: address.sin_port))
        let cases: [([String], String)] = [
            ([fixture.root.appendingPathComponent("missing.txt").path, good, "--bind", "127.0.0.1"], "No such file or directory; nothing is served"),
            ([fixture.root.path, "--bind", "127.0.0.1"], "not a regular file; nothing is served"),
            ([bidi, "--bind", "127.0.0.1"], "bidirectional formatting character"),
            ([good, "--bind", "192.0.2.7", "--port", "0"], "no interface of this computer has that address"),
            ([good, "--bind", "127.0.0.1", "--port", heldPort], "port \(heldPort) is taken"),
            ([good, "--bind", "127.0.0.1", "--time-limit", "0"], "--time-limit must be 1…86400 seconds"),
        ]
        for (arguments, message) in cases {
            let refused = try await fixture.nearby(["serve"] + arguments)
            #expect(refused.status != 0 && refused.errors.contains(message), "\(arguments): \(refused)")
            #expect(!refused.output.contains("PIN"), "\(arguments): \(refused)")
        }
    }

    @Test func theShareSheetOffersTheLinkAndItsShareEndsWithTheCommand() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        try await network.fixture.waitForBroker()
        let file = try network.fixture.file("groceries.txt", Data("apples\npears\n".utf8))
        let listed = try await network.fixture.run(Products.path("courier"), ["share", file, "--list", "--json"])
        #expect(listed.output.contains(#"{"id":"link","kind":"link","title":"Share via link"}"#), "\(listed)")

        // Host A has no default route yet: no local network to pick, the share cannot start.
        let command = IsolatedLoopback.enter(network.hosts.a, Products.path("courier"), ["share", file, "--activity", "link", "--json"])
        let unrouted = try await BackgroundProcess.run(command.executable, command.arguments, environment: network.fixture.environment)
        #expect(unrouted.status != 0 && unrouted.output.contains("org.courier.Error.Failed") && unrouted.errors.contains("no default route"), "\(unrouted.output) \(unrouted.errors)")

        // Host A's default route makes its veth address the one served on by default.
        let route = try await BackgroundProcess.run("/bin/ip", ["-n", network.hosts.a, "route", "add", "default", "dev", network.hosts.vethA],
                                                    environment: network.fixture.environment)
        try #require(route.status == 0, "\(route.errors)")
        let sheet = try network.hosts.start(in: network.hosts.a, Products.path("courier"), ["share", file, "--activity", "link"],
                                            environment: network.fixture.environment, outputIn: network.fixture.root, name: "sheet")
        network.track(sheet)
        let (_, url, pin) = try await network.started(sheet)
        #expect(!sheet.output.contains("PIN"), "the address and the PIN go to standard error: \(sheet.output)")
        #expect(url == "https://\(network.hosts.addressA):53317/", "\(url)")
        let dom = try await network.dumpDOM(url + "?pin=" + pin)
        #expect(dom.contains(">groceries.txt<"), "\(dom)")

        // The sheet's process is killed (not the group): the share ends with it all the same.
        sheet.kill()
        var refused: (status: Int32, output: String, errors: String) = (0, "", "")
        for _ in 0..<60 {
            refused = try await network.curl(["-X", "POST", url + "api/localsend/v2/prepare-download?pin=" + pin])
            if refused.status == 7 { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(refused.status == 7, "the share outlived the sheet: \(refused)")
    }
}
