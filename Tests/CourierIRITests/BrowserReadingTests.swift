import BusTestSupport
import CourierIRI
import CourierURL
import Foundation
import Testing
import URIParserOracle

/// What Courier hands to the desktop means the same host, port and path to a browser: checked
/// against the web platform's own test data and against a WHATWG parser nobody here wrote
/// (Node's `URL`), on the uriparser oracle's corpus and its mutations.
@Suite struct BrowserReadingTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func theIssuesCasesAreRefusedWithTheBrowsersReading() throws {
        let cases: [(String, URIError.Code, String)] = [
            ("http:evil.com@good.com", .browserNoAuthority, "evil.com@good.com"),
            ("http:///example.com/", .browserEmptyHost, "skips the slashes"),
            ("http://0x7f.1/", .browserNumericHost, "127.0.0.1"),
            ("http://2130706433/", .browserNumericHost, "127.0.0.1"),
            ("http://0300.0250.0.1/", .browserNumericHost, "192.168.0.1"),
            ("https://1.2.3.4./", .browserNumericHost, "1.2.3.4"),
            ("http://example.999999999999/", .browserNumericHost, "refuses"),
            ("http://example.com/%2e%2e/etc/passwd", .browserEscapedDotSegment, "'%2e%2e'"),
            ("wss://example.com/a/.%2E/", .browserEscapedDotSegment, "'.%2E'"),
            ("ftp://%65xample.com/", .browserEscapedHost, "percent escape"),
        ]
        for (url, code, words) in cases {
            let reference = try IRI.uri(from: url).uri
            do {
                let verdict = try BrowserReading.check(reference)
                Issue.record("\(url) was handed on: \(verdict)")
            } catch {
                #expect(error.code == code, "\(url): \(error)")
                #expect(error.description.contains(words), "\(url): \(error)")
            }
        }
        // Those a browser reads as Courier does.
        for url in ["http://127.0.0.1/", "https://example.com:443/a/b?c#d", "http://[::1]:8080/", "ws://a_b.example/", "ftp://u:p@ftp.example/x;type=a",
                    "http://xn--r8jz45g.jp/", "mailto:a@example.com", "todolist://0x7f.1/", "http://a.b-c.d/%2e%2ex/"] {
            #expect(try BrowserReading.check(try URIReference(url)) == .same, "\(url)")
        }
    }

    @Test func everyDifferenceOfTheListDoesWhatItSays() {
        for difference in BrowserDifference.all {
            #expect(BrowserDifference.outcome(of: difference.example) == difference.outcome, "\(difference.name): \(difference.example.debugDescription)")
        }
    }

    /// docs/url-format.md's table of differences is this list: same rows, outcomes and examples.
    @Test func theDocumentedTableIsTheList() throws {
        let text = try String(contentsOfFile: Self.repository + "/docs/url-format.md", encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Handing URLs to the desktop").dropFirst().first)
        let table = try #require(section.components(separatedBy: "\n## ").first!.components(separatedBy: "| difference | outcome |").dropFirst().first)
        var rows: [String] = []
        for line in table.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            rows.append([cells[1], cells[2], cells[3]].joined(separator: " "))
        }
        let listed = BrowserDifference.all.map { difference in
            let example = difference.example.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : "\\u{\(String($0.value, radix: 16, uppercase: true))}" }.joined()
            return "`\(difference.name)` \(difference.outcome.word) `\(example)`"
        }
        #expect(rows == listed)
    }

    /// The WHATWG reading of a URL, reduced to what must agree: the host (IPv6 as 16 bytes), the
    /// effective port, and the path with percent-encoding normalized (RFC 3986 section 6.2.2).
    struct Reading: Equatable, CustomStringConvertible {
        var host: String
        var port: Int
        var path: String
        var description: String { "\(host) \(port) \(path)" }

        static let defaultPorts = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21]

        init(host: String, port: Int, path: String) {
            self.host = Self.canonicalHost(host)
            self.port = port
            self.path = Self.normalizedPath(path)
        }

        /// Courier's reading of what it hands on.
        init(_ uri: URIReference) {
            let scheme = uri.scheme!
            self.init(host: uri.host.map(String.init)!.lowercased(), port: uri.port ?? Self.defaultPorts[scheme]!, path: URIReference.removeDotSegments(uri.path))
        }

        static func canonicalHost(_ host: String) -> String {
            guard host.hasPrefix("[") else { return host }
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1 else { return host }
            return withUnsafeBytes(of: &address) { $0.map { String(format: "%02x", $0) }.joined() }
        }

        static func normalizedPath(_ path: String) -> String {
            let normalized = (try? URIReference("x://h" + path).normalized().path).map(String.init) ?? path
            return normalized.isEmpty ? "/" : normalized
        }
    }

    /// The web platform's own URL test data (`urltestdata.json` of web-platform-tests, which
    /// Debian's librust-url-dev ships): for every input of a scheme Courier hands on, what Courier
    /// hands on means the same host, port and path as the expected WHATWG result.
    @Test func webPlatformTestData() throws {
        let folder = "/usr/share/cargo/registry"
        let url = try #require(
            (try? FileManager.default.contentsOfDirectory(atPath: folder))?.filter { $0.hasPrefix("url-") }.sorted().last
                .map { "\(folder)/\($0)/tests/urltestdata.json" },
            "install librust-url-dev (scripts/bootstrap): its tests/urltestdata.json is the web platform's URL test data")
        let entries = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: url))) as? [Any])
        var handedOn = 0
        var refused = 0
        var disagreements: [String] = []
        for case let entry as [String: Any] in entries {
            guard let input = entry["input"] as? String,
                let scheme = input.split(separator: ":", maxSplits: 1).first?.lowercased(), BrowserReading.schemes.contains(scheme),
                input.contains(":")
            else { continue }
            let verdict: URIReference
            do {
                let uri = try IRI.uri(from: input).uri
                switch try BrowserReading.check(uri) {
                case .same: verdict = uri
                case .rewritten(let rewritten, _): verdict = rewritten
                }
            } catch {
                refused += 1
                continue
            }
            handedOn += 1
            guard entry["failure"] as? Bool != true, let hostname = entry["hostname"] as? String, let port = entry["port"] as? String,
                let pathname = entry["pathname"] as? String, let base = (entry["protocol"] as? String)?.dropLast()
            else {
                disagreements.append("\(input.debugDescription): a browser refuses it, Courier hands on \(verdict)")
                continue
            }
            let browser = Reading(host: hostname, port: Int(port) ?? Reading.defaultPorts[String(base)] ?? -1, path: pathname)
            let courier = Reading(verdict)
            if browser != courier { disagreements.append("\(input.debugDescription): browser \(browser), Courier \(courier) (\(verdict))") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) differ:\n\(disagreements.joined(separator: "\n"))")
        #expect(handedOn > 50 && refused > 100, "handed on \(handedOn), refused \(refused): the data set was read")
    }

    /// Node's `URL` (a WHATWG parser) on the uriparser oracle's corpus, its edge cases, and their
    /// single-byte mutations, with characters outside ASCII among the replacements: every URL
    /// Courier hands on reads the same to it.
    @Test func nodeReadsWhatCourierHandsOnTheSameWay() async throws {
        let node = "/usr/bin/node"
        try #require(FileManager.default.isExecutableFile(atPath: node), "Node.js (/usr/bin/node) is the WHATWG parser of this test")
        let bases = (URLCorpus.generate(count: 2_000, seed: 0xC0FFEE) + URLCorpus.edgeCases).filter { url in
            BrowserReading.schemes.contains(url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? "")
        }
        let replacements = ["%", "[", "]", "@", ":", "#", "?", "/", ".", "0", "x", " ", "\\", "\t", "%2e", "%2E.", "ü", "例", "\u{200D}", "0x", "..", ""]
        var inputs: Set<String> = []
        var generator = SplitMix64(state: 0x0DE)
        for base in bases {
            inputs.insert(base)
            let bytes = Array(base.utf8)
            let positions = bytes.count <= 40 ? Array(bytes.indices) : (0..<12).map { _ in Int.random(in: bytes.indices, using: &generator) }
            for index in positions {
                for replacement in replacements {
                    inputs.insert(String(decoding: bytes[..<index], as: UTF8.self) + replacement + String(decoding: bytes[(index + 1)...], as: UTF8.self))
                }
            }
        }
        var handedOn: [(input: String, uri: URIReference)] = []
        for input in inputs.sorted() {
            guard let uri = try? IRI.uri(from: input).uri, BrowserReading.schemes.contains(uri.scheme ?? ""),
                let verdict = try? BrowserReading.check(uri)
            else { continue }
            switch verdict {
            case .same: handedOn.append((input, uri))
            case .rewritten(let rewritten, _): handedOn.append((input, rewritten))
            }
        }
        let folder = TemporaryFolder()
        let list = folder.path + "/urls.json"
        try JSONSerialization.data(withJSONObject: handedOn.map(\.uri.string)).write(to: URL(fileURLWithPath: list))
        let script = """
            const urls = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'));
            process.stdout.write(JSON.stringify(urls.map(s => { try { const u = new URL(s); return [u.hostname, u.port, u.pathname, u.protocol]; } catch (e) { return null; } })));
            """
        let run = try await BackgroundProcess.run(node, ["-e", script, list], environment: ProcessInfo.processInfo.environment)
        #expect(run.status == 0, "\(run.errors)")
        let readings = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [Any])
        try #require(readings.count == handedOn.count)
        var disagreements: [String] = []
        for (index, reading) in readings.enumerated() {
            let (input, uri) = handedOn[index]
            guard let fields = reading as? [String], fields.count == 4 else {
                disagreements.append("\(input.debugDescription) → \(uri): Node refuses it")
                continue
            }
            let browser = Reading(host: fields[0], port: Int(fields[1]) ?? Reading.defaultPorts[String(fields[3].dropLast())] ?? -1, path: fields[2])
            let courier = Reading(uri)
            if browser != courier { disagreements.append("\(input.debugDescription) → \(uri): Node \(browser), Courier \(courier)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(handedOn.count) differ:\n\(disagreements.prefix(40).joined(separator: "\n"))")
        #expect(handedOn.count > 5_000, "\(handedOn.count) of \(inputs.count) inputs handed on")
    }
}
