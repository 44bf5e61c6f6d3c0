import BusTestSupport
import Foundation
import Testing

/// The interoperability matrix with PyPI's `localsend-cli` across the test's namespaces, both
/// directions, with a PIN, a decline and a cancel. `localsend-cli` speaks HTTPS only (it offers no
/// plain HTTP), and its sender has neither a PIN option nor a cancel: against a PIN it can only be
/// refused, and it is cancelled the way its user cancels it (Ctrl-C) or by the protocol's `cancel`
/// with the session id it prints. A cancel is made to land in the middle of an upload by slowing
/// the sender's side of the veth (`tc … tbf`). Every transfer that completes is compared byte for
/// byte; after a cancel, neither side keeps anything of the file.
extension NamespaceInteropTests {
    /// Lines of text (the todolist takes plain text), `bytes` long.
    static func text(_ bytes: Int) -> Data {
        var data = Data()
        var line = 0
        while data.count < bytes {
            data.append(contentsOf: "line \(line): the quick brown fox jumps over the lazy dog\n".utf8)
            line += 1
        }
        return data.prefix(bytes)
    }

    /// Slows what `namespace` sends on its veth end to `rate` (a `tc` rate such as `2mbit`), so that
    /// an upload from there takes long enough to be cancelled half-way.
    static func limitRate(_ network: Network, of namespace: String, to rate: String) async throws {
        let links = try await network.fixture.run("/bin/ip", ["-n", namespace, "-o", "link", "show", "type", "veth"])
        let name = try #require(links.output.split(separator: ":").dropFirst().first?.split(separator: "@").first.map {
            $0.trimmingCharacters(in: .whitespaces)
        }, "no veth in \(namespace): \(links.output)\(links.errors)")
        let shaped = try await network.fixture.run("/usr/sbin/tc", ["-n", namespace, "qdisc", "add", "dev", name, "root", "tbf",
                                                                    "rate", rate, "burst", "16kb", "latency", "2s"])
        try #require(shaped.status == 0, "tc: \(shaped.errors)")
    }

    /// The most bytes one TCP connection to `port` in `namespace` has received so far (`ss -ti`):
    /// how far an upload has come, whatever the receiving program says.
    static func bytesReceived(_ network: Network, in namespace: String, port: Int = 53317) async throws -> Int {
        let listed = try await network.run(in: namespace, "/usr/bin/ss", ["-Htin", "state", "established", "( sport = :\(port) )"])
        return listed.output.components(separatedBy: "bytes_received:").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }.max() ?? 0
    }

    /// Waits (bounded) until an upload to `port` in `namespace` is under way (more than `bytes`
    /// received on one connection).
    static func waitForUpload(_ network: Network, in namespace: String, beyond bytes: Int = 200_000) async throws {
        var received = 0
        for _ in 0..<600 where received <= bytes {
            try await Task.sleep(for: .milliseconds(50))
            received = try await bytesReceived(network, in: namespace)
        }
        try #require(received > bytes, "no upload under way in \(namespace): \(received) bytes received")
    }

    /// Waits (bounded) until something listens on `port` in `namespace`.
    static func waitForListener(_ network: Network, in namespace: String, port: Int = 53317) async throws {
        var listening = ""
        for _ in 0..<500 where listening.isEmpty {
            listening = try await network.run(in: namespace, "/usr/bin/ss", ["-Htln", "( sport = :\(port) )"]).output
            if listening.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        try #require(!listening.isEmpty, "nothing listens on \(port) in \(namespace)")
    }

    /// `localsend-cli receive` in host B writing into `output`, once it listens. With `answer`, its
    /// person types that at its prompt (the answer waits on its standard input); without, it
    /// accepts without asking (`--clean`).
    static func startLocalsendCLIReceive(_ network: Network, output: URL, pin: String? = nil, answer: String? = nil) async throws -> BackgroundProcess {
        let cli = try NearbyFixture.peer("localsend-cli")
        let arguments = ["receive", "--output", output.path] + (pin.map { ["--pin", $0] } ?? []) + (answer == nil ? ["--clean"] : ["--interactive-json"])
        let receiver: BackgroundProcess
        if let answer {
            // The same process (so signals reach it) with its answer waiting in a pipe on stdin.
            let feed = "import os, sys; r, w = os.pipe(); os.write(w, sys.argv[1].encode() + b'\\n'); os.close(w); os.dup2(r, 0); os.execv(sys.argv[2], sys.argv[2:])"
            receiver = try network.start(in: network.hosts.b, "/usr/bin/python3", ["-c", feed, answer, cli] + arguments, name: "localsend-cli-receive")
        } else {
            receiver = try network.start(in: network.hosts.b, cli, arguments, name: "localsend-cli-receive")
        }
        try await waitForListener(network, in: network.hosts.b)
        return receiver
    }

    /// `courier nearby send` of `file` from host A to host B.
    static func send(_ network: Network, _ file: String, _ extra: [String] = []) async throws -> (status: Int32, output: String, errors: String) {
        try await network.run(in: network.hosts.a, Products.path("courier-nearby"), ["send", file, "--to-device", network.hosts.addressB] + extra)
    }

    /// Trusts localsend-cli's certificate (it makes it on first use, in the fixture's HOME).
    static func trustLocalsendCLI(_ network: Network) async throws {
        let python = try NearbyFixture.peer("python")
        let fingerprint = try await network.fixture.run(python, ["-c", "from localsend_cli.crypto import get_fingerprint; print(get_fingerprint())"])
        try #require(fingerprint.status == 0, "\(fingerprint.errors)")
        let declared = fingerprint.output.split(separator: "\n").last.map(String.init) ?? ""
        let trusted = try await network.fixture.nearby(["trust", declared, "--alias", "localsend-cli"])
        try #require(trusted.status == 0, "\(trusted.errors)")
    }

    /// The files in an Inbox `pid` holds open (an unnamed file being written shows in no listing).
    static func openInInbox(_ pid: Int32) -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }.filter { $0.contains("/Inbox/") }
    }

    /// Nothing of a file in the Inbox or in staging, and the unnamed file the upload went into
    /// given up (its descriptor closed, so its blocks are freed) within a bounded wait.
    static func expectNothingKept(_ network: Network, receiver: BackgroundProcess, after step: String) async throws {
        for _ in 0..<500 where !openInInbox(receiver.pid).isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(openInInbox(receiver.pid).isEmpty, "\(step): the receiver still holds \(openInInbox(receiver.pid)) after 10 s\n\(receiver.errors)")
        #expect(network.fixture.contents(of: network.fixture.inbox()).isEmpty, "\(step): \(network.fixture.contents(of: network.fixture.inbox()))")
        #expect(network.fixture.contents(of: network.fixture.staging).isEmpty, "\(step): \(network.fixture.contents(of: network.fixture.staging))")
    }

    // MARK: - Courier sends into localsend-cli

    @Test func courierSendsIntoLocalsendCLIWithItsPINAndWithoutItIsToldSo() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let output = network.fixture.root.appendingPathComponent("received", isDirectory: true)
        let receiver = try await Self.startLocalsendCLIReceive(network, output: output, pin: "2468")
        let file = try network.fixture.file("pinned.bin", Data((0..<250_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }))

        let noPIN = try await Self.send(network, file)
        #expect(noPIN.status == 1 && noPIN.errors.contains("wants its PIN"), "\(noPIN.output)\(noPIN.errors)")
        let wrong = try await Self.send(network, file, ["--pin", "1357"])
        #expect(wrong.status == 1 && wrong.errors.contains("wants its PIN"), "\(wrong.output)\(wrong.errors)")
        #expect(network.fixture.contents(of: output).isEmpty)

        let sent = try await Self.send(network, file, ["--pin", "2468"])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        #expect(network.fixture.contents(of: output) == ["pinned.bin"])
        #expect(NearbyFixture.sha256(output.appendingPathComponent("pinned.bin").path) == NearbyFixture.sha256(file), "\(receiver.output)\(receiver.errors)")
    }

    /// The person at localsend-cli answers "n" at its prompt: `send` says it was declined.
    @Test func aDeclineAtLocalsendCLIIsWhatSendSays() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let output = network.fixture.root.appendingPathComponent("received", isDirectory: true)
        let receiver = try await Self.startLocalsendCLIReceive(network, output: output, answer: "n")
        let file = try network.fixture.file("unwanted.txt", Data("no thanks\n".utf8))
        let sent = try await Self.send(network, file)
        #expect(sent.status == 1, "\(sent.output)\(sent.errors)")
        #expect(sent.errors.contains("prepare-upload: the receiver declined"), "\(sent.errors)")
        // It was asked (its prompt event), and it kept nothing.
        #expect(receiver.output.contains("\"event\": \"prompt\""), "\(receiver.output)\(receiver.errors)")
        #expect(network.fixture.contents(of: output).isEmpty)
    }

    /// The person at localsend-cli accepts, then stops it (Ctrl-C) half-way through the upload:
    /// `send` says the receiver stopped the transfer, and neither side keeps any of the file.
    @Test func localsendCLIStoppedInTheMiddleOfAnUploadLeavesNothingOnEitherSide() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        try await Self.limitRate(network, of: network.hosts.a, to: "2mbit")   // 3 MB take about 12 s
        let output = network.fixture.root.appendingPathComponent("received", isDirectory: true)
        let receiver = try await Self.startLocalsendCLIReceive(network, output: output, answer: "y")
        let file = try network.fixture.file("long.txt", Self.text(3_000_000))
        let sender = try network.start(in: network.hosts.a, Products.path("courier-nearby"), ["send", file, "--to-device", network.hosts.addressB], name: "sender")
        try await Self.waitForUpload(network, in: network.hosts.b)

        receiver.signal(SIGINT)
        #expect(await receiver.wait(timeout: .seconds(30)) != nil, "localsend-cli did not stop: \(receiver.output)")
        let status = await sender.wait(timeout: .seconds(60))
        #expect(status == 1, "\(sender.output)\(sender.errors)")
        #expect(sender.errors.contains("the upload of long.txt"), "\(sender.errors)")
        #expect(sender.errors.contains("closed the connection"), "\(sender.errors)")
        #expect(network.fixture.contents(of: output).isEmpty, "localsend-cli kept \(network.fixture.contents(of: output))")
    }

    // MARK: - localsend-cli sends into Courier

    /// The receiver asks on its terminal (a pseudo-terminal the test types into) in host A.
    static func startReceiverOnTerminal(_ network: Network, answer: String) async throws -> BackgroundProcess {
        let driver = PythonPeers.path("consent_terminal.py")
        let receiver = try network.start(in: network.hosts.a, "/usr/bin/python3", [driver, answer, Products.path("courier-nearby"), "receive",
                                                                                   "--to", NearbyFixture.todolist, "--no-discovery"], name: "receiver-terminal")
        try await waitForListener(network, in: network.hosts.a)
        return receiver
    }

    /// `localsend-cli send` from host B to host A; with `within`, stopped (`timeout`, status 124)
    /// after that many seconds.
    static func localsendCLISend(_ network: Network, _ files: [String], within seconds: Int? = nil) async throws -> (status: Int32, output: String, errors: String) {
        let send = [try NearbyFixture.peer("localsend-cli"), "send", network.hosts.addressA] + files + ["--json"]
        guard let seconds else { return try await network.run(in: network.hosts.b, send[0], Array(send.dropFirst())) }
        return try await network.run(in: network.hosts.b, "/usr/bin/timeout", [String(seconds)] + send)
    }

    /// The accepted file has 10,000 lines, of which the todolist makes as many tasks, for longer
    /// than the broker's deadline for an app's answer (25 s): the sender hears success once the
    /// file is in the Inbox, within a bound (20 s) it could not keep if the upload waited for the app.
    @Test func localsendCLISendsIntoTheInboxWhenThePersonAcceptsAndNothingWhenTheyDecline() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let notes = try network.fixture.file("notes.txt", Data((0..<10_000).map { "\($0) lorem ipsum dolor sit amet\n" }.joined().utf8))
        let declined = try await Self.startReceiverOnTerminal(network, answer: "n")
        let refused = try await Self.localsendCLISend(network, [notes])
        #expect(refused.output.contains("Transfer rejected by receiver"), "\(refused.output)\(refused.errors)\n\(declined.output)")
        #expect(!refused.output.contains("\"event\": \"sent\""), "\(refused.output)")
        try await Self.expectNothingKept(network, receiver: declined, after: "a decline")
        NearbyFixture.stop(declined)

        let accepting = try await Self.startReceiverOnTerminal(network, answer: "y")
        let sent = try await Self.localsendCLISend(network, [notes], within: 20)
        #expect(sent.status == 0 && sent.output.contains("\"event\": \"sent\""), "\(sent.output)\(sent.errors)\n\(accepting.output)")
        #expect(network.fixture.contents(of: network.fixture.inbox()) == ["notes.txt"])
        #expect(NearbyFixture.sha256(network.fixture.inbox().appendingPathComponent("notes.txt").path) == NearbyFixture.sha256(notes))

        // The app got the file and added its 10,000 lines as tasks; it is then quit rather than
        // left running after the test.
        let log = network.fixture.root.appendingPathComponent("state/courier/logs/\(NearbyFixture.todolist).log")
        func added() -> Bool { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("added 10000 tasks from notes.txt") }
        for _ in 0..<1000 where !added() { try await Task.sleep(for: .milliseconds(20)) }
        #expect(added(), "the todolist did not add notes.txt's lines: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        let quit = try await network.fixture.run(Products.path("courier-tool"), ["quit", "--force", NearbyFixture.todolist])
        #expect(quit.status == 0, "\(quit.output)\(quit.errors)")
    }

    /// localsend-cli cannot send a PIN: a receiver that wants one refuses it, and it is told 401.
    @Test func aReceiverWithAPINRefusesLocalsendCLIWhichHasNoneToGive() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let receiver = try await network.startReceiver(["--to", NearbyFixture.todolist, "--pin", "24681357", "--no-discovery"])
        let file = try network.fixture.file("secret.txt", Data("not without a PIN\n".utf8))
        let sent = try await Self.localsendCLISend(network, [file])
        #expect(sent.status == 1 && sent.output.contains("HTTP 401"), "\(sent.output)\(sent.errors)")
        #expect(receiver.errors.contains("refused: 401"), "\(receiver.errors)")
        try await Self.expectNothingKept(network, receiver: receiver, after: "a missing PIN")
    }

    /// While localsend-cli uploads, its session is cancelled with the protocol's `cancel` (the
    /// session id it printed, from its own address), and then its user stops it half-way through a
    /// second upload (Ctrl-C): both times nothing of the file is kept, and the app is never told.
    @Test func aCancelOrAnInterruptedLocalsendCLILeavesNothingInTheInbox() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        try await Self.trustLocalsendCLI(network)
        let receiver = try await network.startReceiver(["--to", NearbyFixture.todolist, "--trusted-only", "--no-discovery"])
        try await Self.limitRate(network, of: network.hosts.b, to: "2mbit")   // 3 MB take about 12 s
        let file = try network.fixture.file("long.txt", Self.text(3_000_000))
        let cli = try NearbyFixture.peer("localsend-cli")

        let cancelled = try network.start(in: network.hosts.b, cli, ["send", network.hosts.addressA, file, "--json"], name: "localsend-cli-send")
        try await Self.waitForUpload(network, in: network.hosts.a)
        let line = try #require(cancelled.output.split(separator: "\n").first { $0.contains("\"event\": \"session\"") }, "\(cancelled.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let session = try #require(object["session_id"] as? String)
        let cancel = try await network.run(in: network.hosts.b, "/usr/bin/curl", ["-sk", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                                                                                  "https://\(network.hosts.addressA):53317/api/localsend/v2/cancel?sessionId=\(session)"])
        #expect(cancel.output == "200", "\(cancel.output)\(cancel.errors)")
        _ = await cancelled.wait(timeout: .seconds(60))
        #expect(!cancelled.output.contains("\"event\": \"sent\""), "\(cancelled.output)")
        #expect(receiver.errors.contains("the upload in flight is stopped, nothing of it is kept"), "\(receiver.errors)")
        try await Self.expectNothingKept(network, receiver: receiver, after: "the cancel")

        let interrupted = try network.start(in: network.hosts.b, cli, ["send", network.hosts.addressA, file, "--json"], name: "localsend-cli-interrupted")
        try await Self.waitForUpload(network, in: network.hosts.a)
        interrupted.signal(SIGINT)
        #expect(await interrupted.wait(timeout: .seconds(30)) != nil, "localsend-cli did not stop")
        for _ in 0..<500 where !receiver.errors.contains("upload of \"long.txt\" from \(network.hosts.addressB) failed") {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(receiver.errors.contains("upload of \"long.txt\" from \(network.hosts.addressB) failed"), "\(receiver.errors)")
        try await Self.expectNothingKept(network, receiver: receiver, after: "the interrupted upload")
    }
}
