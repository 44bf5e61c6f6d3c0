import BusTestSupport
import Foundation
import Testing

/// Every refusal docs/nearby.md describes for a request that breaks the protocol, sent against a real receiver (PIN mode, loopback, real broker), sent
/// with `curl` and Python's `ssl` module: each gets the protocol's status and a log line, nothing
/// partial is left in the Inbox or the staging folder, and the receiver keeps serving.
@Suite("Nearby: bad input gets the protocol's answer and loses nothing", .serialized)
struct BadInputTests {
    static let pin = "4711"

    /// A receiver in PIN mode for the todolist, and `curl` against it.
    final class Receiver: @unchecked Sendable {
        let fixture: NearbyFixture
        let process: BackgroundProcess
        let port: Int

        /// `target` is the `--to` app; nil lets the receiver choose the app for each file.
        init(_ extra: [String] = [], to target: String? = NearbyFixture.todolist, brokerLogLevel: String = "warning",
             beforeBroker prepare: (URL) throws -> Void = { _ in }) async throws {
            fixture = try NearbyFixture(brokerLogLevel: brokerLogLevel, beforeBroker: prepare)
            do {
                try await fixture.waitForBroker()
                (process, port) = try await fixture.startReceiver((target.map { ["--to", $0] } ?? []) + ["--pin", BadInputTests.pin] + extra)
            } catch {
                fixture.tearDown()
                throw error
            }
        }

        var base: String { "https://127.0.0.1:\(port)/api/localsend/v2/" }

        /// `curl -k` (the receiver's certificate is self-signed): status and body.
        func curl(_ arguments: [String]) async throws -> (status: Int, body: String) {
            let bodyPath = fixture.root.appendingPathComponent("curl-\(UUID().uuidString).out").path
            let result = try await fixture.run("/usr/bin/curl", ["-sk", "-o", bodyPath, "-w", "%{http_code}", "--max-time", "60"] + arguments)
            let body = (try? String(contentsOfFile: bodyPath, encoding: .utf8)) ?? ""
            return (Int(result.output) ?? -1, body)
        }

        func post(_ route: String, json: Any) async throws -> (status: Int, body: String) {
            let data = try JSONSerialization.data(withJSONObject: json)
            let path = try fixture.file("body-\(UUID().uuidString).json", data)
            return try await curl(["-X", "POST", "-H", "content-type: application/json", "--data-binary", "@\(path)", base + route])
        }

        static func prepare(_ files: [[String: Any]], fingerprint: String = String(repeating: "ab", count: 32)) -> [String: Any] {
            let info: [String: Any] = ["alias": "tester", "version": "2.0", "deviceType": "headless", "fingerprint": fingerprint, "port": 53317, "protocol": "https"]
            var byID: [String: Any] = [:]
            for file in files { byID[file["id"] as! String] = file }
            return ["info": info, "files": byID]
        }

        static func file(_ id: String, _ name: String, size: Int, sha256: String? = nil) -> [String: Any] {
            var file: [String: Any] = ["id": id, "fileName": name, "size": size, "fileType": "text/plain"]
            if let sha256 { file["sha256"] = sha256 }
            return file
        }

        /// Opens a session for one text file; returns its session id and token.
        func session(name: String = "a.txt", size: Int, sha256: String? = nil) async throws -> (session: String, token: String) {
            let answer = try await post("prepare-upload?pin=\(BadInputTests.pin)", json: Self.prepare([Self.file("f1", name, size: size, sha256: sha256)]))
            try #require(answer.status == 200, "prepare-upload: \(answer)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            let session = try #require(object["sessionId"] as? String)
            let token = try #require((object["files"] as? [String: String])?["f1"])
            return (session, token)
        }

        func upload(_ session: String, token: String, file: String = "f1", data: Data, extra: [String] = []) async throws -> (status: Int, body: String) {
            let path = try fixture.file("upload-\(UUID().uuidString).bin", data)
            return try await curl(["-X", "POST", "--data-binary", "@\(path)"] + extra + [base + "upload?sessionId=\(session)&fileId=\(file)&token=\(token)"])
        }

        /// Nothing partial anywhere, and a good upload still works (the receiver keeps serving).
        func expectCleanAndServing(_ comment: Comment) async throws {
            #expect(fixture.contents(of: fixture.staging).isEmpty, "staging: \(fixture.contents(of: fixture.staging)) \(comment)")
            let before = fixture.contents(of: fixture.inbox())
            #expect(before.allSatisfy { !$0.hasPrefix(".") }, "\(before) \(comment)")
            let data = Data("still serving\n".utf8)
            let (session, token) = try await session(name: "ok.txt", size: data.count)
            let answer = try await upload(session, token: token, data: data)
            #expect(answer.status == 200, "\(answer) \(comment)")
            #expect(fixture.contents(of: fixture.inbox()).count == before.count + 1, "\(comment)")
            #expect(process.exitStatus == nil, "the receiver exited: \(process.errors)")
        }

        func tearDown() { fixture.tearDown() }
    }

    @Test func missingAndWrongPINsGet401AndTheNextPINWaitsOutTheBackOff() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let body = Receiver.prepare([Receiver.file("f1", "a.txt", size: 3)])
        let missing = try await receiver.post("prepare-upload", json: body)
        #expect(missing.status == 401 && missing.body.contains("PIN required"), "\(missing)")
        let wrong = try await receiver.post("prepare-upload?pin=0000", json: body)
        #expect(wrong.status == 401 && wrong.body.contains("wrong PIN"), "\(wrong)")
        let waiting = try await receiver.post("prepare-upload?pin=\(Self.pin)", json: body)
        #expect(waiting.status == 429 && waiting.body.contains("try again in a moment"), "even the right PIN waits out the back-off: \(waiting)")
        #expect(receiver.process.errors.contains("refused: 401 wrong PIN"), "\(receiver.process.errors)")
        #expect(receiver.process.errors.contains("a PIN of 4 digits is short"), "\(receiver.process.errors)")
        #expect(receiver.fixture.contents(of: receiver.fixture.inbox()).isEmpty)
        // The back-off (1 s) passing is what is tested: there is no event to wait on.
        try await Task.sleep(for: .seconds(1.5))
        try await receiver.expectCleanAndServing("after the back-off")
    }

    @Test func anUntrustedSenderIsRefusedWhenOnlyTrustedOnesMayEnter() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        try await fixture.waitForBroker()
        let (process, port) = try await fixture.startReceiver(["--to", NearbyFixture.todolist, "--trusted-only"])
        let path = try fixture.file("prepare.json", try JSONSerialization.data(withJSONObject: Receiver.prepare([Receiver.file("f1", "a.txt", size: 3)])))
        let result = try await fixture.run("/usr/bin/curl", ["-sk", "-w", "\n%{http_code}", "-X", "POST", "--data-binary", "@\(path)",
                                                             "https://127.0.0.1:\(port)/api/localsend/v2/prepare-upload"])
        #expect(result.output.hasSuffix("\n403"), "\(result.output)")
        #expect(result.output.contains("only trusted senders"), "\(result.output)")
        #expect(process.errors.contains("refused: 403"), "\(process.errors)")
    }

    @Test func wrongSessionTokenOrMissingParametersAreRefused() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let data = Data("abc".utf8)
        let (session, token) = try await receiver.session(size: data.count)
        let wrongToken = try await receiver.upload(session, token: "0000", data: data)
        #expect(wrongToken.status == 403, "\(wrongToken)")
        let wrongSession = try await receiver.upload("not-the-session", token: token, data: data)
        #expect(wrongSession.status == 409, "\(wrongSession)")
        let wrongFile = try await receiver.upload(session, token: token, file: "f2", data: data)
        #expect(wrongFile.status == 403, "\(wrongFile)")
        let missing = try await receiver.curl(["-X", "POST", "--data-binary", "abc", receiver.base + "upload?sessionId=\(session)"])
        #expect(missing.status == 400 && missing.body.contains("sessionId, fileId and token"), "\(missing)")
        #expect(receiver.process.errors.contains("upload from 127.0.0.1 refused"), "\(receiver.process.errors)")
        // The real token still works afterwards.
        let right = try await receiver.upload(session, token: token, data: data)
        #expect(right.status == 200, "\(right)")
        try await receiver.expectCleanAndServing("after wrong tokens")
    }

    @Test func uploadsLongerOrShorterThanAnnouncedOrWithAnotherHashAreRefused() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let data = Data("twelve bytes".utf8)
        // Content-Length that differs from the announced size: refused before a byte is stored.
        var (session, token) = try await receiver.session(size: data.count + 1)
        let shorter = try await receiver.upload(session, token: token, data: data)
        #expect(shorter.status == 400 && shorter.body.contains("Content-Length"), "\(shorter)")
        // Chunked (no Content-Length): longer than announced.
        (session, token) = try await receiver.session(size: data.count - 1)
        let longer = try await receiver.upload(session, token: token, data: data, extra: ["-H", "Transfer-Encoding: chunked"])
        #expect(longer.status == 400 && longer.body.contains("longer than"), "\(longer)")
        // Chunked, shorter than announced.
        (session, token) = try await receiver.session(size: data.count + 5)
        let short = try await receiver.upload(session, token: token, data: data, extra: ["-H", "Transfer-Encoding: chunked"])
        #expect(short.status == 400 && short.body.contains("ended after"), "\(short)")
        // The right size, another content than the announced SHA-256.
        (session, token) = try await receiver.session(size: data.count, sha256: String(repeating: "0", count: 64))
        let hash = try await receiver.upload(session, token: token, data: data)
        #expect(hash.status == 400 && hash.body.contains("SHA-256"), "\(hash)")
        #expect(receiver.fixture.contents(of: receiver.fixture.inbox()).isEmpty)
        try await receiver.expectCleanAndServing("after size and hash mismatches")
    }

    @Test(arguments: ["../../.bashrc", "dir/evil.txt", "nul\u{0}.txt", "CON.txt", String(repeating: "n", count: 10 << 10) + ".txt",
                      "evil\u{202E}txt.exe", "c1\u{85}control.txt", "line\u{2028}separator.txt", "esc\u{1B}[2J.txt"])
    func hostileFileNamesAreRefusedAtPrepareUpload(_ name: String) async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let answer = try await receiver.post("prepare-upload?pin=\(Self.pin)", json: Receiver.prepare([Receiver.file("f1", name, size: 3)]))
        #expect(answer.status == 400 && answer.body.contains("fileName"), "\(answer.status) \(answer.body.prefix(200))")
        #expect(receiver.process.errors.contains("prepare-upload from 127.0.0.1 refused: 400"), "\(receiver.process.errors.suffix(400))")
        try await receiver.expectCleanAndServing("after \(name.prefix(20).debugDescription)")
    }

    @Test func tenThousandFilesMalformedJSONAndAFileNoAppAcceptsAreRefused() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let many = (0..<10_000).map { Receiver.file("id\($0)", "f\($0).txt", size: 1) }
        let tooMany = try await receiver.post("prepare-upload?pin=\(Self.pin)", json: Receiver.prepare(many))
        #expect(tooMany.status == 400 && tooMany.body.contains("10000 files"), "\(tooMany)")
        let path = try receiver.fixture.file("broken.json", Data(#"{"info": {"alias": "x", "fingerprint": "#.utf8))
        let malformed = try await receiver.curl(["-X", "POST", "--data-binary", "@\(path)", receiver.base + "prepare-upload?pin=\(Self.pin)"])
        #expect(malformed.status == 400 && malformed.body.contains("not JSON"), "\(malformed)")
        let missingKey = try await receiver.post("prepare-upload?pin=\(Self.pin)", json: ["info": ["alias": "x", "fingerprint": "y"]])
        #expect(missingKey.status == 400 && missingKey.body.contains("lacks files"), "\(missingKey)")
        // The todolist declares plain text only: a PNG is refused before any byte is sent.
        let png = try await receiver.post("prepare-upload?pin=\(Self.pin)", json: Receiver.prepare([Receiver.file("p", "photo.png", size: 10)]))
        #expect(png.status == 403 && png.body.contains("does not accept"), "\(png)")
        try await receiver.expectCleanAndServing("after refused prepare-uploads")
    }

    @Test func aSecondSessionWhileOneIsActiveGets409() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let (session, token) = try await receiver.session(size: 3)
        let second = try await receiver.post("prepare-upload?pin=\(Self.pin)", json: Receiver.prepare([Receiver.file("g", "b.txt", size: 3)]))
        #expect(second.status == 409, "\(second)")
        let cancelled = try await receiver.curl(["-X", "POST", receiver.base + "cancel?sessionId=\(session)"])
        #expect(cancelled.status == 200, "\(cancelled)")
        let afterCancel = try await receiver.upload(session, token: token, data: Data("abc".utf8))
        #expect(afterCancel.status == 403, "a cancelled session takes no upload: \(afterCancel)")
        try await receiver.expectCleanAndServing("after a second session")
    }

    @Test func plainHTTPOnTheHTTPSPortGetsA400SayingSo() async throws {
        let receiver = try await Receiver()
        defer { receiver.tearDown() }
        let plain = try await receiver.fixture.run("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", "http://127.0.0.1:\(receiver.port)/api/localsend/v2/info"])
        #expect(plain.output.hasSuffix("\n400"), "\(plain.output.debugDescription)")
        #expect(plain.output.contains("use https://"), "\(plain.output)")
        #expect(receiver.process.errors.contains("plain HTTP request"), "\(receiver.process.errors)")
        let info = try await receiver.curl([receiver.base + "info"])
        #expect(info.status == 200 && info.body.contains("\"fingerprint\""), "\(info)")
    }

    @Test func aSenderThatStopsMidUploadAndIdleConnectionsLeaveNothingBehind() async throws {
        let receiver = try await Receiver(["--idle-timeout", "2"])
        defer { receiver.tearDown() }
        let (session, token) = try await receiver.session(size: 1 << 20)
        // Python's ssl module: announce 1 MiB, send 100 KiB, close; and 20 connections that send nothing.
        let path = PythonPeers.path("stalled_upload.py")
        let stalled = try await receiver.fixture.run("/usr/bin/python3", [path, String(receiver.port), "/api/localsend/v2/upload?sessionId=\(session)&fileId=f1&token=\(token)"])
        #expect(stalled.output.contains("all closed"), "the receiver closes silent connections: \(stalled.output)\(stalled.errors) receiver: \(receiver.process.exitStatus.map { "exited \($0)" } ?? "running") \(receiver.process.errors)")
        #expect(receiver.process.errors.contains("upload of \"a.txt\" from 127.0.0.1 failed"), "\(receiver.process.errors)")
        try await receiver.expectCleanAndServing("after a stalled upload and idle connections")
    }

    /// A body larger than the free space of the receiving file system. The data home (staging
    /// folder and Inboxes) is a tmpfs of 100 MiB the test mounts; between `prepare-upload` and
    /// `upload` a filler file takes the space, as another program's writes would. Each case gets a
    /// clear answer, nothing partial is left in staging or the Inbox, and the receiver keeps
    /// serving. Needs root (mount(2)), as CI has; skipped, saying so, elsewhere.
    @Test func aBodyLargerThanTheFreeSpaceIsRefusedAndLeavesNothing() async throws {
        var data: String?
        let receiver: Receiver
        do {
            receiver = try await Receiver(beforeBroker: { root in
                let folder = root.appendingPathComponent("data").path
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                guard mount("courier-test", folder, "tmpfs", 0, "size=100m,mode=0700") == 0 else { throw MountUnavailable(code: errno) }
                data = folder
            })
        } catch let error as MountUnavailable {
            try Test.cancel("skipped: cannot mount a tmpfs as the data home (\(error)); mounting needs root, as CI has")
        } catch {
            if let data { umount2(data, Int32(MNT_DETACH)) }
            throw error
        }
        let folder = try #require(data)
        receiver.fixture.onTearDown { umount2(folder, Int32(MNT_DETACH)) }
        defer { receiver.tearDown() }
        let filler = folder + "/filler"
        // Text (the todolist takes text only, checked by content too): 64-byte lines.
        let twelveMiB = Data((0..<(12 << 20)).map { (index: Int) -> UInt8 in index % 64 == 63 ? 10 : UInt8(97 + index % 26) })

        // Announced larger than the file system could take (with the Inbox's 64 MiB reserve):
        // refused at prepare-upload, before a byte is sent.
        let tooBig = try await receiver.post("prepare-upload?pin=\(Self.pin)", json: Receiver.prepare([Receiver.file("f1", "big.txt", size: 50 << 20)]))
        #expect(tooBig.status == 403 && tooBig.body.contains("not enough free space"), "\(tooBig)")

        // Fits when announced; the disk fills before the body arrives: the staging write fails.
        var (session, token) = try await receiver.session(name: "fills.txt", size: twelveMiB.count)
        try Self.fill(filler, leaving: 6 << 20)
        let full = try await receiver.upload(session, token: token, data: twelveMiB)
        #expect(full.status == 500 && full.body.contains("the disk is full"), "\(full)")
        #expect(receiver.fixture.contents(of: receiver.fixture.staging).isEmpty, "\(receiver.fixture.contents(of: receiver.fixture.staging))")
        #expect(receiver.fixture.contents(of: receiver.fixture.inbox()).isEmpty)
        try FileManager.default.removeItem(atPath: filler)

        // The body fits, the Inbox's reserve does not any more: the broker refuses.
        (session, token) = try await receiver.session(name: "staged.txt", size: twelveMiB.count)
        try Self.fill(filler, leaving: 20 << 20)
        let noRoom = try await receiver.upload(session, token: token, data: twelveMiB)
        #expect(noRoom.status == 500 && noRoom.body.contains("kept free"), "\(noRoom)")
        #expect(receiver.fixture.contents(of: receiver.fixture.inbox()).isEmpty)
        #expect(receiver.process.errors.contains("upload of \"staged.txt\" from 127.0.0.1 failed"), "\(receiver.process.errors.suffix(600))")
        try FileManager.default.removeItem(atPath: filler)

        try await receiver.expectCleanAndServing("after bodies larger than the free space")
    }

    /// Takes the free space of `path`'s file system down to `free` bytes (tmpfs allocates at once).
    static func fill(_ path: String, leaving free: Int64) throws {
        var status = statvfs()
        try #require(statvfs((path as NSString).deletingLastPathComponent, &status) == 0)
        let available = Int64(status.f_bavail) * Int64(status.f_frsize)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(available > free && posix_fallocate(fd, 0, off_t(available - free)) == 0, "cannot take \(available - free) bytes")
    }

    struct MountUnavailable: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "mount: \(String(cString: strerror(code)))" }
    }
}
