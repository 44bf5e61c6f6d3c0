import BusTestSupport
import Foundation
import Testing

/// What the receiver answers beside protocol v2's usual path, each against a real receiver with
/// `curl`: v1's routes (a client following the v1 protocol), plain HTTP when the user turned it
/// on, an empty `files` map, a retried upload, and a sender's cancel while its upload is in flight.
@Suite("Nearby: v1, plain HTTP, retries and cancels", .serialized)
struct ProtocolVersionTests {
    typealias Receiver = BadInputTests.Receiver

    /// v1 (LocalSend protocol v1): `info`, `send-request` answering the tokens alone, `send` and
    /// `cancel` naming no session; the sender's `info` has no fingerprint.
    @Test func aClientFollowingV1SendsIntoTheInbox() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let v1 = "https://127.0.0.1:\(receiver.port)/api/localsend/v1/"
        let info = try await receiver.curl([v1 + "info"])
        #expect(info.status == 200 && info.body.contains("\"alias\""), "\(info)")

        let data = Data("v1 milk\nv1 eggs\n".utf8)
        let request: [String: Any] = [
            "info": ["alias": "old phone", "deviceModel": "Pixel", "deviceType": "mobile"],
            "files": ["f1": ["id": "f1", "fileName": "v1.txt", "size": data.count, "fileType": "text"]],
        ]
        let body = try receiver.fixture.file("v1.json", try JSONSerialization.data(withJSONObject: request))
        let prepared = try await receiver.curl(["-X", "POST", "-H", "content-type: application/json", "--data-binary", "@\(body)", v1 + "send-request?pin=\(BadInputTests.pin)"])
        #expect(prepared.status == 200, "\(prepared)")
        let tokens = try #require(try JSONSerialization.jsonObject(with: Data(prepared.body.utf8)) as? [String: String], "v1 answers {fileId: token}: \(prepared.body)")
        let token = try #require(tokens["f1"])
        let path = try receiver.fixture.file("v1.txt", data)
        let sent = try await receiver.curl(["-X", "POST", "--data-binary", "@\(path)", v1 + "send?fileId=f1&token=\(token)"])
        #expect(sent.status == 200, "\(sent)")
        #expect(NearbyFixture.sha256(receiver.fixture.inbox().appendingPathComponent("v1.txt").path) == NearbyFixture.sha256(path))

        // A second v1 session, cancelled without a session id.
        let again = try await receiver.curl(["-X", "POST", "--data-binary", "@\(body)", v1 + "send-request?pin=\(BadInputTests.pin)"])
        #expect(again.status == 200, "\(again)")
        let cancelled = try await receiver.curl(["-X", "POST", v1 + "cancel"])
        #expect(cancelled.status == 200, "\(cancelled)")
        #expect(receiver.process.errors.contains("cancelled by the sender"), "\(receiver.process.errors)")
        try await receiver.expectCleanAndServing("after v1")
    }

    @Test func anEmptyFilesMapGets204() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let answer = try await receiver.post("prepare-upload?pin=\(BadInputTests.pin)", json: Receiver.prepare([]))
        #expect(answer.status == 204 && answer.body.isEmpty, "\(answer)")
        try await receiver.expectCleanAndServing("after an empty prepare-upload")
    }

    @Test func aRetriedUploadIsAnsweredAndStoredOnce() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let data = Data("once\n".utf8)
        let (session, token) = try await receiver.session(name: "once.txt", size: data.count)
        let first = try await receiver.upload(session, token: token, data: data)
        #expect(first.status == 200, "\(first)")
        let retry = try await receiver.upload(session, token: token, data: data)
        #expect(retry.status == 200, "the sender that missed the answer hears success: \(retry)")
        #expect(receiver.fixture.contents(of: receiver.fixture.inbox()) == ["once.txt"])
        let wrongToken = try await receiver.upload(session, token: String(repeating: "0", count: 32), data: data)
        #expect(wrongToken.status == 403, "\(wrongToken)")
    }

    /// 32 MiB sent at 4 MiB/s; the sender cancels once the upload is under way. Nothing lands, the log says so.
    @Test func aCancelStopsTheUploadInFlight() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let line = Data((0..<64).map { $0 == 63 ? 10 : UInt8(97 + $0 % 26) })
        var data = Data()
        for _ in 0..<(32 << 14) { data.append(line) }
        let (session, token) = try await receiver.session(name: "big.txt", size: data.count)
        let path = try receiver.fixture.file("big.txt", data)
        let upload = try BackgroundProcess("/usr/bin/curl", ["-sk", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "60", "--limit-rate", "4M",
                                                             "-X", "POST", "--data-binary", "@\(path)", receiver.base + "upload?sessionId=\(session)&fileId=f1&token=\(token)"],
                                           environment: receiver.fixture.environment, outputIn: receiver.fixture.root, name: "slow-upload")
        // In flight once the receiver holds the file it writes the upload into (unnamed, in the Inbox or staging).
        let writing = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(receiver.process.pid)/fd"))?.contains { fd in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(receiver.process.pid)/fd/\(fd)")) ?? ""
            return target.contains("/Inbox/") || target.contains("nearby-staging")
        } == true }
        for _ in 0..<500 where !writing() { try await Task.sleep(for: .milliseconds(20)) }
        #expect(writing(), "the upload never started: \(receiver.process.errors)")
        let cancelled = try await receiver.curl(["-X", "POST", receiver.base + "cancel?sessionId=\(session)"])
        #expect(cancelled.status == 200, "\(cancelled)")
        let status = await upload.wait(timeout: .seconds(60))
        #expect(status != nil, "the upload did not end")
        #expect(upload.output != "200", "the cancelled upload must not succeed: \(upload.output)")
        #expect(receiver.fixture.contents(of: receiver.fixture.inbox()).isEmpty, "\(receiver.fixture.contents(of: receiver.fixture.inbox()))")
        let log = receiver.process.errors
        #expect(log.contains("cancelled by the sender; the upload in flight is stopped"), "\(log)")
        #expect(!log.contains("\"big.txt\" → "), "the log says nothing landed: \(log)")
        try await receiver.expectCleanAndServing("after a cancel in flight")
    }

    /// `--plain-http`: requests without TLS are served and the device says `"protocol": "http"`;
    /// TLS still works on the same port.
    @Test func plainHTTPModeServesWithoutTLSWhenTurnedOn() async throws {
        let receiver = try await Receiver(["--plain-http"])
        defer { receiver.tearDown() }
        #expect(receiver.process.errors.contains("plain HTTP is on"), "\(receiver.process.errors)")
        let http = "http://127.0.0.1:\(receiver.port)/api/localsend/v2/"
        let info = try await receiver.fixture.run("/usr/bin/curl", ["-s", http + "info"])
        let device = try #require(try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any], "\(info.output)")
        #expect(device["protocol"] as? String == "http", "\(device)")
        #expect(device["version"] as? String == "2.1", "\(device)")

        let data = Data("plain\n".utf8)
        let body = try receiver.fixture.file("prepare.json", try JSONSerialization.data(withJSONObject: Receiver.prepare([Receiver.file("f1", "plain.txt", size: data.count)])))
        let prepared = try await receiver.fixture.run("/usr/bin/curl", ["-s", "-X", "POST", "--data-binary", "@\(body)", http + "prepare-upload?pin=\(BadInputTests.pin)"])
        let session = try #require(try JSONSerialization.jsonObject(with: Data(prepared.output.utf8)) as? [String: Any], "\(prepared.output)")
        let token = try #require((session["files"] as? [String: String])?["f1"])
        let path = try receiver.fixture.file("plain.txt", data)
        let sent = try await receiver.fixture.run("/usr/bin/curl", ["-s", "-w", "%{http_code}", "-X", "POST", "--data-binary", "@\(path)",
                                                                    http + "upload?sessionId=\(session["sessionId"] as? String ?? "")&fileId=f1&token=\(token)"])
        #expect(sent.output == "200", "\(sent.output)")
        #expect(NearbyFixture.sha256(receiver.fixture.inbox().appendingPathComponent("plain.txt").path) == NearbyFixture.sha256(path))
        try await receiver.expectCleanAndServing("over HTTPS on the same port")
    }

    /// The v1-only receiver (`localsend_v1_receiver.py`) running, writing into `v1-received` in the fixture's folder: it, its port,
    /// and that folder.
    static func startV1Receiver(_ fixture: NearbyFixture) async throws -> (BackgroundProcess, Int, URL) {
        let folder = fixture.root.appendingPathComponent("v1-received", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = PythonPeers.path("localsend_v1_receiver.py")
        let server = try BackgroundProcess("/usr/bin/python3", [script, folder.path], environment: fixture.environment, outputIn: fixture.root, name: "v1-receiver")
        for _ in 0..<500 where Int(server.output.trimmingCharacters(in: .whitespacesAndNewlines)) == nil { try await Task.sleep(for: .milliseconds(20)) }
        guard let port = Int(server.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            server.kill()
            Issue.record("the v1 receiver did not start: \(server.errors)")
            throw CancellationError()
        }
        return (server, port, folder)
    }

    @Test func sendFallsBackToV1ForAV1OnlyReceiver() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        let (server, port, folder) = try await Self.startV1Receiver(fixture)
        defer { server.kill() }
        let file = try fixture.file("notes.bin", Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        let sent = try await fixture.nearby(["send", file, "--to-device", "http://127.0.0.1:\(port)"])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        #expect(NearbyFixture.sha256(folder.appendingPathComponent("notes.bin").path) == NearbyFixture.sha256(file))
        // Over HTTPS the same receiver is a plain-HTTP one: send says so and sends nothing.
        let tls = try await fixture.nearby(["send", file, "--to-device", "127.0.0.1:\(port)"])
        #expect(tls.status != 0 && tls.errors.contains("does not speak HTTPS") && tls.errors.contains("http://127.0.0.1:\(port)"), "\(tls.errors)")
    }
}

extension ProtocolVersionTests {
    /// The body goes straight into an unnamed file in the Inbox, which the broker links into
    /// place after its checks: no staging file is ever made (one write of each byte), and the file
    /// is read-only there as any dropped file.
    @Test func anUploadIsWrittenOnceIntoTheInbox() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let data = Data("written once\n".utf8)
        let (session, token) = try await receiver.session(name: "once.txt", size: data.count)
        let sent = try await receiver.upload(session, token: token, data: data)
        #expect(sent.status == 200, "\(sent)")
        #expect(NearbyFixture.sha256(receiver.fixture.inbox().appendingPathComponent("once.txt").path) == NearbyFixture.sha256(try receiver.fixture.file("once.txt", data)))
        #expect(!FileManager.default.fileExists(atPath: receiver.fixture.staging.path), "no staging file was made: \(receiver.fixture.contents(of: receiver.fixture.staging))")
        #expect(!receiver.process.errors.contains("copied into the Inbox"), "\(receiver.process.errors)")
        let attributes = try FileManager.default.attributesOfItem(atPath: receiver.fixture.inbox().appendingPathComponent("once.txt").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o444)

    }
}
