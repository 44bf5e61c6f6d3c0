import BusTestSupport
import CourierNames
import Foundation
import Testing

/// What a launched app prints goes to its log, which `courier log` shows; the README's example app
/// (`courier-test-app echo`: `Application.run(delegate:)`) sees an empty `sourceApplication` from a
/// shell, and run by hand without `COURIER_BUNDLE_ID` ends with one line, not a trap. A real broker
/// on a private bus, real processes.
@Suite("App logs", .serialized)
struct AppLogTests {
    static func fixture() async throws -> BrokerFixture {
        try await BrokerFixture { try $0.write("com.acme.echo", schemes: ["echo"], arguments: [Products.path("courier-test-app"), "echo"]) }
    }

    @Test func whatALaunchedAppPrintsIsInItsLog() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let layout = CourierLayout(environment: fixture.environment)
        let echo = try BundleIdentifier("com.acme.echo")
        // A log past the rotation size becomes .log.1 at the next launch.
        try FileManager.default.createDirectory(atPath: layout.logsFolder, withIntermediateDirectories: true)
        try Data(repeating: UInt8(ascii: "x"), count: CourierLayout.logRotationSize + 1).write(to: URL(fileURLWithPath: layout.log(for: echo)))

        let open = try await runProduct("courier", ["open", "echo://one"], fixture.environment)
        #expect(open.status == 0, "\(open)")
        #expect(try await runProduct("courier", ["open", "echo://two"], fixture.environment).status == 0)
        #expect((try? FileManager.default.attributesOfItem(atPath: layout.previousLog(for: echo))[.size] as? Int) == CourierLayout.logRotationSize + 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: layout.log(for: echo))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let lines = try await runProduct("courier", ["log", "com.acme.echo", "-n", "2"], fixture.environment)
        #expect(lines.status == 0 && lines.output == "opened echo://one from ''\nopened echo://two from ''\n", "\(lines.output.suffix(300))")
        let whole = try await runProduct("courier", ["log", "com.acme.echo"], fixture.environment)
        #expect(whole.output.hasSuffix("courierd launches com.acme.echo: \(Products.path("courier-test-app")) echo\nopened echo://one from ''\nopened echo://two from ''\n"), "\(whole.output.suffix(300))")
        #expect(whole.output.hasPrefix("xxxx"), "the log before the rotation comes first")

        // --follow prints what the app prints next (once, whether it starts before or after the open).
        let follow = try BackgroundProcess(Products.path("courier"), ["log", "com.acme.echo", "-f", "-n", "1"], environment: fixture.environment,
                                           outputIn: fixture.root, name: "courier-log-follow")
        defer { follow.kill() }
        #expect(try await runProduct("courier", ["open", "echo://three"], fixture.environment).status == 0)
        for _ in 0..<100 where !follow.output.contains("opened echo://three") { try await Task.sleep(for: .milliseconds(50)) }
        #expect(follow.output.hasSuffix("opened echo://three from ''\n"), "\(follow.output.suffix(300))")
        #expect(follow.output.components(separatedBy: "echo://three").count == 2)

        let none = try await runProduct("courier", ["log", "com.acme.never"], fixture.environment)
        #expect(none.status == 3 && none.error.contains("no app com.acme.never is registered"), "\(none)")
        let invalid = try await runProduct("courier", ["log", "../etc"], fixture.environment)
        #expect(invalid.status == 65, "\(invalid)")

        let unregister = try await runProduct("courier", ["unregister", "com.acme.echo"], fixture.environment)
        #expect(unregister.status == 0 && unregister.output.contains("its data stays in \(fixture.dataHome.path)/courier/containers/com.acme.echo"), "\(unregister)")
        #expect(!FileManager.default.fileExists(atPath: layout.log(for: echo)))
        #expect(!FileManager.default.fileExists(atPath: layout.previousLog(for: echo)))
    }

    @Test func runByHandWithoutABundleIDItSaysWhatToSet() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        var environment = fixture.environment
        environment["COURIER_BUNDLE_ID"] = nil
        let result = try await runProduct("courier-test-app", ["echo"], environment)
        #expect(result.status == 1, "\(result)")
        #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
        #expect(result.error.hasPrefix("courier-test-app: COURIER_BUNDLE_ID is not set: Courier sets it when it launches the app"), "\(result.error)")
        #expect(!result.error.contains("Fatal error"))
    }
}
