// swift-tools-version: 6.1
import PackageDescription

/// The libFuzzer target of the URL parser, kept out of the main package so the fuzzer's `main`
/// and the sanitizer flags never reach the normal build. `Sources/CourierURL` is a symlink to the
/// real module, so the fuzzer exercises exactly the shipped code. Run it with scripts/fuzz-url.
let package = Package(
    name: "FuzzURLParser",
    targets: [
        .target(name: "CourierURL"),
        // The process entry point: calls libFuzzer's driver (SwiftPM renames `main`).
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "FuzzURLParser",
            dependencies: ["CourierURL", "FuzzDriver"],
            // No `main` symbol: libFuzzer provides it.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
