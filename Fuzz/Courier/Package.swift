// swift-tools-version: 6.1
import PackageDescription

/// libFuzzer targets of the manifest loader and of the broker's decoding of untrusted D-Bus
/// arguments, kept out of the main package so the fuzzers' entry points and the sanitizer flags
/// never reach the normal build. Each `Sources/<Module>` other than the Fuzz* ones is a symlink to
/// the real module, so the fuzzers exercise exactly the shipped code. Run them with `scripts/fuzz`.
let testable: [SwiftSetting] = [.unsafeFlags(["-enable-testing"])]
let package = Package(
    name: "CourierFuzz",
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    ],
    targets: [
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1"),
        .systemLibrary(name: "CMagic", pkgConfig: "libmagic"),
        .target(name: "CInbox"),
        .target(name: "CourierURL", dependencies: ["CURLScan"]),
        .target(name: "CURLScan"),
        .target(name: "CourierNames"),
        .target(name: "CourierProcess"),
        .target(name: "CourierTypes", dependencies: ["CMagic", "CourierNames"], swiftSettings: testable),
        .target(name: "CourierManifest", dependencies: ["CourierURL", "CourierTypes", "CourierNames"], swiftSettings: testable),
        .target(name: "DBus", dependencies: ["CDBus"], swiftSettings: testable),
        .target(name: "CourierInbox", dependencies: ["CInbox", "CourierNames"]),
        .systemLibrary(name: "CIDN2", pkgConfig: "libidn2"),
        .target(name: "CourierIRI", dependencies: ["CourierURL", "CourierNames", "CIDN2"]),
        .target(name: "CProcessHandle"),
        .target(name: "CourierProtocol", dependencies: ["DBus", "CourierNames"]),
        .target(
            name: "CourierBroker",
            dependencies: ["DBus", "CourierURL", "CourierIRI", "CourierManifest", "CourierTypes", "CourierInbox", "CourierNames", "CourierProcess",
                           "CourierProtocol", "CProcessHandle",
                           .product(name: "Logging", package: "swift-log"), .product(name: "DequeModule", package: "swift-collections")],
            swiftSettings: testable
        ),
        // The process entry points: call libFuzzer's driver (SwiftPM renames `main`).
        .target(name: "FuzzDrivers"),
        .executableTarget(
            name: "FuzzManifest",
            dependencies: ["CourierManifest", "CourierNames", "FuzzDrivers"],
            // No `main` symbol: libFuzzer provides the loop.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzBrokerArguments",
            dependencies: ["DBus", "CDBus", "CourierBroker", "FuzzDrivers"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
