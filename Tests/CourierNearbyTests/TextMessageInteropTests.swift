import BusTestSupport
import Foundation
import Testing

/// A text message from Courier to the LocalSend peers across the test's namespaces. Neither peer
/// shows messages as the reference app does (a `preview`, answered 204): `localsend-cli` takes a
/// single text file as a text and prints it, `localsendd` stores it as a file. Both answer the
/// message's `prepare-upload` with a token, so `send` uploads the text, and each gets it whole.
/// Neither peer's sender announces a `preview` (their files are files), so the other direction
/// is a file transfer, which `NamespaceInteropTests` covers.
extension NamespaceInteropTests {
    static let message = "https://example.org/menu?day=friday#soup"

    @Test func aTextMessageToLocalsendCLIIsTheTextItPrints() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let output = network.fixture.root.appendingPathComponent("received", isDirectory: true)
        let receiver = try await Self.startLocalsendCLIReceive(network, output: output)
        let sent = try await network.run(in: network.hosts.a, Products.path("courier-nearby"),
                                         ["send", "--text", Self.message, "--to-device", network.hosts.addressB, "--json"])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        #expect(sent.output.contains("\"text\":\"uploaded-as-file\""), "\(sent.output)")
        for _ in 0..<500 where !receiver.output.contains(Self.message) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(receiver.output.split(separator: "\n").contains { $0 == Self.message }, "\(receiver.output)\(receiver.errors)")
        #expect(network.fixture.contents(of: output).isEmpty, "localsend-cli printed the text and stores no file: \(network.fixture.contents(of: output))")
    }

    @Test func aTextMessageToLocalsenddArrivesAsItsTextFile() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let (_, _, downloads) = try await network.startLocalsendd(alias: "Peer B")
        try await Self.waitForListener(network, in: network.hosts.b)
        let text = "Buy milk\nand bread — ü\n"
        let sent = try await network.run(in: network.hosts.a, Products.path("courier-nearby"),
                                         ["send", "--text", text, "--to-device", network.hosts.addressB, "--json"])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        #expect(sent.output.contains("\"text\":\"uploaded-as-file\""), "\(sent.output)")
        let stored = network.fixture.contents(of: downloads)
        #expect(stored.count == 1 && stored.first?.hasSuffix(".txt") == true, "\(stored)")
        let content = stored.first.flatMap { try? String(contentsOf: downloads.appendingPathComponent($0), encoding: .utf8) }
        #expect(content == text, "\(content ?? "nothing")")
    }
}
