// swift-tools-version: 6.1
import PackageDescription

/// The libFuzzer target of the URL parser, kept out of the main package so the fuzzer's `main`
/// and the sanitizer flags never reach the normal build. `Sources/CourierURL` and `Sources/CURLScan` are
/// symlinks to the real modules (as are CourierIRI, CourierNames and CIDN2), so the fuzzer exercises exactly the shipped code. Run it with scripts/fuzz-url.
let package = Package(
    name: "FuzzURLParser",
    targets: [
        .target(name: "CourierURL", dependencies: ["CURLScan"]),
        .target(name: "CURLScan"),
        // liburiparser, the oracle every input is compared with (URIParserOracle, also a symlink).
        .systemLibrary(name: "CURIParser", pkgConfig: "liburiparser"),
        .target(name: "URIParserOracle", dependencies: ["CURIParser", "CourierURL"]),
        // The IRI mapping and the browser check (symlinks too), with CleanText and libidn2.
        .target(name: "CourierNames"),
        .systemLibrary(name: "CIDN2", pkgConfig: "libidn2"),
        .target(name: "CourierIRI", dependencies: ["CourierURL", "CourierNames", "CIDN2"]),
        // The process entry point: calls libFuzzer's driver (SwiftPM renames `main`).
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "FuzzURLParser",
            dependencies: ["CourierURL", "CourierIRI", "URIParserOracle", "FuzzDriver"],
            // No `main` symbol: libFuzzer provides it.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
