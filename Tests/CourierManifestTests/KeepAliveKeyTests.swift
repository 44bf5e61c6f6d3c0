import CourierManifest
import Testing

/// `CourierKeepAlive` and `CourierRunAtLoad` (launchd's `KeepAlive` and `RunAtLoad`).
@Suite struct KeepAliveKeyTests {
    func parse(_ extra: [String: PropertyListValue], launchable: Bool = true) -> ManifestParser.Result {
        var plist: [String: PropertyListValue] = ["CFBundleIdentifier": .string("com.acme.daemon")]
        if launchable { plist["CourierLaunchArguments"] = .array([.string("/usr/bin/daemon")]) }
        plist.merge(extra) { $1 }
        return ManifestParser().parse(.dictionary(plist), path: "/m/daemon.plist")
    }

    @Test func bothKeysAreReadAndOffByDefault() {
        let result = parse(["CourierKeepAlive": .boolean(true), "CourierRunAtLoad": .boolean(true)])
        #expect(result.manifest?.keepAlive == true && result.manifest?.runAtLoad == true)
        #expect(result.diagnostics.isEmpty)
        #expect(parse([:]).manifest?.keepAlive == false && parse([:]).manifest?.runAtLoad == false)
    }

    @Test func aWrongTypeIsReportedAndIgnored() {
        let result = parse(["CourierKeepAlive": .string("yes"), "CourierRunAtLoad": .integer(1)])
        #expect(result.manifest?.keepAlive == false && result.manifest?.runAtLoad == false)
        #expect(Set(result.diagnostics.map(\.keyPath)) == ["CourierKeepAlive", "CourierRunAtLoad"])
    }

    @Test func withoutALaunchCommandTheyAreIgnoredWithAWarning() {
        let result = parse(["CourierKeepAlive": .boolean(true)], launchable: false)
        #expect(result.manifest?.keepAlive == false)
        #expect(result.diagnostics.contains { $0.keyPath == "CourierKeepAlive" && $0.severity == .warning && $0.message.contains("CourierLaunchArguments") })
    }
}
