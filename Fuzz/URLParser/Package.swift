// swift-tools-version: 6.1
import PackageDescription

/// The libFuzzer target of the URL parser, kept out of the main package so the fuzzer's `main`
/// and the sanitizer flags never reach the normal build. `Sources/CourierURL` and `Sources/CURLScan` are
/// symlinks to the real modules, so the fuzzer exercises exactly the shipped code. Run it with scripts/fuzz-url.
let package = Package(
    name: "FuzzURLParser",
    targets: [
        .target(name: "CourierURL", dependencies: ["CURLScan"]),
        .target(name: "CURLScan"),
        // liburiparser, the oracle every input is compared with (URIParserOracle, also a symlink).
        .systemLibrary(name: "CURIParser", pkgConfig: "liburiparser"),
        .target(name: "URIParserOracle", dependencies: ["CURIParser", "CourierURL"]),
        // The process entry point: calls libFuzzer's driver (SwiftPM renames `main`).
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "FuzzURLParser",
            dependencies: ["CourierURL", "URIParserOracle", "FuzzDriver"],
            // No `main` symbol: libFuzzer provides it.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
