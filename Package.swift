// swift-tools-version: 6.2
import PackageDescription

/// Every Swift target gets the same strictness: Swift 6 language mode (strict concurrency).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// How every Swift target reaches the metadata of a concrete generic type (`[UInt32: PendingCall]`,
/// `UnsafeContinuation<DBusMessage, any Error>`): through an accessor that hands the runtime the
/// conformances the type needs (`UInt32: Hashable`), not through its mangled name, which the runtime
/// decodes and checks by searching every protocol-conformance record of the executable for each
/// first (type, protocol) pair — about half of an app's start-up until `CheckIn` and of its first
/// URL (docs/PERFORMANCE.md, "Cold open"). An unsafe flag, which is why the manifest's tools
/// version is 6.2: from that version SwiftPM accepts a dependency's unsafe flags, so an app still
/// depends on Courier by version (`from: "…"`), not only by path, branch or revision.
let metadataAccessSettings: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"]),
]

/// How a Courier app is linked to start like a native tool (docs/PERFORMANCE.md, "Cold open"):
/// fully static (`-static-executable`), so no dynamic loader runs at launch — no libswiftCore,
/// Foundation, ICU, libdbus, libsystemd and their libraries to map, and no symbol look-ups or
/// relocations (about half a dynamically linked app's start-up instructions). The target also depends on
/// the `CourierStaticExecutable` product (libsystemd's two symbols libdbus.a names, and the stubs
/// of `StaticExecutable.wrappedSymbols`). SwiftPM compiles the modules against the shared
/// Foundation, whose objects name only libFoundation for the linker: the static archives it needs
/// besides are named here. lld links (gold warns at every link that the static Foundation refers
/// to glibc's `mktemp`). The todolist example and courier-bench's start-up app use it; so can any
/// app, in its own manifest: these are the executable's link flags.
let nativeToolLinking: [LinkerSetting] = [
    .unsafeFlags(["-static-executable", "-use-ld=lld"] + StaticExecutable.wrapFlags),
    .linkedLibrary("FoundationEssentials"), .linkedLibrary("FoundationInternationalization"), .linkedLibrary("CoreFoundation"),
    .linkedLibrary("_FoundationICU"), .linkedLibrary("_FoundationCShims"), .linkedLibrary("_FoundationCollections"),
]

let package = Package(
    name: "Courier",
    products: [
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "CourierURL", targets: ["CourierURL"]),
        .library(name: "CourierManifest", targets: ["CourierManifest"]),
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierStaticExecutable", targets: ["CourierStaticExecutable"]),
        .executable(name: "courierd", targets: ["courierd"]),
        .executable(name: "courier", targets: ["CourierFront"]),
        .executable(name: "courier-tool", targets: ["courier-tool"]),
        .executable(name: "todolist", targets: ["todolist"]),
        .executable(name: "courier-nearby", targets: ["courier-nearby"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // Nearby (LocalSend) only: HTTPS server and client, the self-signed certificate.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.0"),
    ],
    targets: [
        // libdbus-1 through pkg-config; only the DBus module imports it.
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .target(name: "DBus", dependencies: ["CDBus"]),
        // libmagic through pkg-config; only CourierTypes' ContentSniffer imports it.
        .systemLibrary(name: "CMagic", pkgConfig: "libmagic", providers: [.apt(["libmagic-dev"])]),
        // Uniform type identifiers: the conformance graph, system types, shared-mime-info, content
        // sniffing, naming a file's type. What the manifests, the registry and the drops share.
        .target(name: "CourierTypes", dependencies: ["CMagic", "CourierNames"]),
        .target(name: "CourierURL", dependencies: ["CURLScan"]),
        // SSE2 byte classification for CourierURL's fast path (Swift SIMD has no movemask).
        .target(name: "CURLScan"),
        // liburiparser (Debian's strict RFC 3986 parser in C) through pkg-config: the C peer of
        // `courier-bench url` and the oracle of CourierURLTests and the URL fuzzer. Only
        // URIParserOracle imports it, and CourierURL never depends on either.
        .systemLibrary(name: "CURIParser", pkgConfig: "liburiparser", providers: [.apt(["liburiparser-dev"])]),
        .target(name: "URIParserOracle", dependencies: ["CURIParser", "CourierURL"]),
        // libidn2 (UTS #46 IDNA) through pkg-config; only CourierIRI imports it.
        .systemLibrary(name: "CIDN2", pkgConfig: "libidn2", providers: [.apt(["libidn2-dev"])]),
        // IRIs (RFC 3987) to URIs, and the check that a URL handed to the desktop means to a browser
        // (WHATWG URL) what it means to CourierURL. Beside CourierURL, not in it, so that the parser,
        // the apps linked fully static and the `courier` front stay free of libidn2.
        .target(name: "CourierIRI", dependencies: ["CourierURL", "CourierNames", "CIDN2"]),
        .target(name: "CourierManifest", dependencies: ["CourierURL", "CourierTypes", "CourierNames"]),
        // fd -> atomic file in an app's Documents/Inbox; the file system edge of DropFiles.
        .target(name: "CourierInbox", dependencies: ["CInbox", "CourierNames"]),
        // Linux calls Swift's Glibc module does not import (copy_file_range, renameat2, O_TMPFILE).
        .target(name: "CInbox"),
        // The facts every layer shares, dependency-free and Foundation-free so that each links it (the
        // static front included): bundle identifiers and their D-Bus names, the on-disk layout, the
        // public D-Bus names, the one table of org.courier.Error.* names.
        .target(name: "CourierNames"),
        // posix_spawn with a clean slate (no shell, fds above 2 closed, signals reset): one spawner
        // for the apps the broker launches, the programs the desktop edge runs, and the helper processes
        // of the benchmark, the load harness and the tests.
        .target(name: "CourierProcess"),
        // pidfd_send_signal(2) for the broker's `ProcessHandle`: signals the very process it verified.
        .target(name: "CProcessHandle"),
        .target(
            name: "CourierBroker",
            dependencies: [
                "DBus", "CourierURL", "CourierIRI", "CourierManifest", "CourierTypes", "CourierInbox", "CourierNames", "CourierProcess", "CourierProtocol", "CProcessHandle",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // The one declaration of Broker1, Application1 and BrokerLink1: names, members, signatures,
        // option keys, replies, the bundle id → bus name mapping. Both ends of every call use it.
        .target(name: "CourierProtocol", dependencies: ["DBus", "CourierNames"]),
        .target(name: "Courier", dependencies: ["DBus", "CourierNames", "CourierProtocol"]),
        // What an executable linked with `-static-executable` needs besides the archives (the front, and
        // apps linked by `nativeToolLinking`): Sources/CourierStaticExecutable/StaticLinkStubs.swift.
        .target(name: "CourierStaticExecutable"),
        // The freedesktop edge: desktop entries, mimeapps.list, hand-off to gio / xdg-open.
        .target(name: "CourierDesktop", dependencies: ["CourierNames", "CourierProcess"]),
        .executableTarget(
            name: "courierd",
            dependencies: [
                "CourierBroker", "CourierDesktop", "CourierInbox", "CourierManifest", "CourierNames",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The share sheet's options on a command line (`--activity`, `--folder`, `--exclude`), for
        // every command that shares: `courier share` and the todolist example's `share`.
        .target(
            name: "CourierShareOptions",
            dependencies: ["Courier", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The `courier` command (the product's name; the folder is not `Sources/courier`, which a
        // case-insensitive file system takes for `Sources/Courier`): answers `courier open URL…` itself (one blocking libdbus call: no Foundation, no
        // ArgumentParser, no Swift concurrency) and execs `courier-tool` for everything else; linked
        // fully static, so the one command that must be fast costs ~0.8 ms of CPU (docs/broker.md,
        // "`courier open` start-up").
        .executableTarget(
            name: "CourierFront",
            dependencies: ["CDBus", "CourierNames", "CourierStaticExecutable"],
            linkerSettings: [.unsafeFlags(["-static-executable"] + StaticExecutable.wrapFlags)]
        ),
        // How the user's tools (courier-tool, courier nearby, the benchmark, the load harness, the tests)
        // call the broker, on the protocol and the binding: every Broker1 method they use, and what they
        // ask of the broker's registry, never a copy of it. Not on the app library `Courier`, which
        // offers an app's calls and nothing for tools; apps do not link this.
        .target(name: "CourierTools", dependencies: ["CourierProtocol", "CourierNames", "DBus"]),
        // The full CLI behind `courier`: every subcommand (ArgumentParser, Foundation, the registry).
        .executableTarget(
            name: "courier-tool",
            dependencies: [
                "Courier", "CourierURL", "CourierIRI", "CourierManifest", "CourierNames", "CourierProtocol", "DBus", "CourierDesktop", "CourierInbox", "CourierProcess", "CourierTools", "CourierShareOptions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // LocalSend protocol v2: the wire model, sessions, consent, the HTTPS server and
        // client, multicast discovery. Network-facing: only `courier-nearby` links it, never courierd.
        .target(
            name: "CourierNearby",
            dependencies: [
                "DBus", "CourierManifest", "CourierTypes", "CourierNames", "CourierProtocol", "CourierInbox", "CourierTools",
                "CourierIRI", "CourierDesktop",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `courier-nearby` (run as `courier nearby …`): receive, send, scan, trust.
        .executableTarget(
            name: "courier-nearby",
            dependencies: ["CourierNearby", "CourierTools", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The todolist example's model: its URL format, items and store (testable without the app).
        .target(name: "TodoListKit", dependencies: ["CourierURL"]),
        .executableTarget(
            name: "todolist",
            dependencies: [
                "Courier", "CourierShareOptions", "CourierURL", "TodoListKit", "CourierStaticExecutable",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: nativeToolLinking
        ),
        // Plain C libdbus echo service and client: the baseline of `courier-bench dbus-echo`.
        .target(name: "CDBusEcho", dependencies: ["CDBus"]),
        // `courier-bench startup`'s app on the Courier library (linked like todolist), exiting once
        // checked in; its bare C libdbus peer, Sources/courier-bench/CPeer, is compiled by the
        // benchmark with `cc` (a C executable linked by the Swift driver loads the Swift runtime too).
        .executableTarget(name: "courier-bench-app", dependencies: ["Courier", "CourierStaticExecutable"], linkerSettings: nativeToolLinking),
        // Release-built benchmark harness: `swift run -c release courier-bench`.
        .executableTarget(
            name: "courier-bench",
            dependencies: ["DBus", "CourierURL", "CourierIRI", "URIParserOracle", "CourierManifest", "CourierTypes", "Courier", "CourierProtocol", "CourierBroker", "CDBusEcho", "BusTestSupport", "CourierInbox", "CourierProcess", "CourierTools"],
            exclude: ["CPeer"]
        ),
        // Load run (docs/broker.md, "Load and leaks"): driver, recorder app and load client in one executable.
        .executableTarget(name: "courier-test-app", dependencies: ["Courier", "CourierProtocol", "DBus", "BusTestSupport", "CourierProcess", "CourierTools"]),
        // Real peers for what exercises Courier from outside: a private dbus-daemon (or dbus-broker)
        // per suite, and helper processes run to completion with their output in files. A library of
        // the package, not a test: the tests, the benchmark (courier-bench) and the load harness
        // (courier-test-app) all run on it.
        .target(name: "BusTestSupport", dependencies: ["DBus", "CourierProcess"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "CDBus", "BusTestSupport"]),
        .testTarget(name: "CourierURLTests", dependencies: ["CourierURL", "URIParserOracle", "BusTestSupport"]),
        .testTarget(name: "CourierIRITests", dependencies: ["CourierIRI", "CourierURL", "CourierNames", "URIParserOracle", "BusTestSupport"]),
        .testTarget(name: "CourierProcessTests", dependencies: ["CourierProcess"]),
        .testTarget(name: "CourierNamesTests", dependencies: ["CourierNames"]),
        .testTarget(name: "CourierTypesTests", dependencies: ["CourierTypes", "BusTestSupport", "URIParserOracle"]),
        .testTarget(name: "CourierTests", dependencies: ["Courier", "CourierNames"]),
        .testTarget(name: "CourierProtocolTests", dependencies: ["CourierProtocol", "DBus", "CourierNames", "BusTestSupport"]),
        .testTarget(name: "CourierManifestTests", dependencies: ["CourierManifest", "CourierTypes", "CourierNames", "BusTestSupport"]),
        .testTarget(name: "TodoListKitTests", dependencies: ["TodoListKit", "CourierURL", "CourierManifest", "URIParserOracle"]),
        .testTarget(name: "CourierInboxTests", dependencies: ["CourierInbox", "CInbox", "Courier", "CourierProcess"]),
        .testTarget(name: "CourierDesktopTests", dependencies: ["CourierDesktop", "CourierNames", "BusTestSupport"]),
        .testTarget(name: "CourierBrokerTests", dependencies: ["CourierBroker", "CourierURL", "CourierManifest", "CourierInbox", "CourierNames", "CourierProcess"]),
        .testTarget(name: "CourierNearbyTests", dependencies: ["CourierNearby", "BusTestSupport", "CourierProcess", "CourierManifest", "CourierTools"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["Courier", "CourierProtocol", "CourierBroker", "DBus", "BusTestSupport", "CourierInbox", "CInbox", "CourierProcess", "CourierTools", "courier-test-app"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings + metadataAccessSettings
}

/// The executables linked fully static (`courier`, and the apps linked by `nativeToolLinking`; see
/// Sources/CourierStaticExecutable/StaticLinkStubs.swift):
/// - these C library calls, which a static glibc can only make by loading shared NSS modules, are
///   replaced by stubs that fail (the front then leaves the command to `courier-tool`; an app's bus
///   connection fails as it says);
/// - the C runtime's registration of the executable's unwind tables is replaced by a no-op, and the
///   linker writes their index (`--eh-frame-hdr`): an unwinder then binary-searches the index, as
///   in a dynamic executable, instead of sorting every unwind entry of the ~75 MB binary first —
///   which the main thread's exit under `async` main (`dispatch_main` ends it with `pthread_exit`,
///   a forced unwind) paid at every launch: ~115 M instructions, 40× the whole start-up.
enum StaticExecutable {
    static let wrappedSymbols = ["getpwuid_r", "getpwnam_r", "getgrouplist", "getaddrinfo", "dlopen", "__register_frame_info", "__deregister_frame_info"]
    static let wrapFlags = wrappedSymbols.flatMap { ["-Xlinker", "--wrap=\($0)"] } + ["-Xlinker", "--eh-frame-hdr"]
}
