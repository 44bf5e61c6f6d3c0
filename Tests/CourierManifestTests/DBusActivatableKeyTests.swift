import CourierManifest
import Testing

@Suite struct DBusActivatableKeyTests {
    func parse(_ extra: [String: PropertyListValue]) -> ManifestParser.Result {
        var plist: [String: PropertyListValue] = ["CFBundleIdentifier": .string("org.example.ForeignViewer")]
        plist.merge(extra) { $1 }
        return ManifestParser().parse(.dictionary(plist), path: "/m/viewer.plist")
    }

    @Test func foreignAppIsMarkedAndCountsAsLaunchable() {
        let result = parse(["CourierDBusActivatable": .boolean(true)])
        #expect(result.manifest?.dbusActivatable == true)
        #expect(result.manifest?.canLaunch == true)
        #expect(result.diagnostics.isEmpty)
        #expect(parse([:]).manifest?.dbusActivatable == false)
    }

    @Test func wrongTypeIsReportedAndIgnored() {
        let result = parse(["CourierDBusActivatable": .string("yes")])
        #expect(result.manifest?.dbusActivatable == false)
        #expect(result.diagnostics.map(\.keyPath) == ["CourierDBusActivatable"])
    }

    @Test func launchArgumentsBesideItAreReported() {
        let result = parse(["CourierDBusActivatable": .boolean(true), "CourierLaunchArguments": .array([.string("/usr/bin/viewer")])])
        #expect(result.manifest?.dbusActivatable == true)
        #expect(result.diagnostics.contains { $0.keyPath == "CourierDBusActivatable" && $0.severity == .warning })
    }
}
