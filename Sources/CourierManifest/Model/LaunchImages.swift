/// The launch images of an app (the guide's 6.2.3, "Displaying a Custom Launch Image When a URL is
/// Opened"): PNG files beside the manifest named `<base>-<scheme>.png`, where `<base>` is the
/// manifest's `UILaunchImageFile` (without `.png`), else `Default`. The broker shows the image of a
/// URL's scheme while it launches the app for that URL and the app is slow to check in
/// (docs/manifest.md, "Launch images").
///
/// The parser keeps the base name; the loader (which reads files) fills `paths` with the images
/// that exist and pass `problem(inPNG:)`, and reports the others.
public struct LaunchImages: Sendable, Hashable {
    /// The base name when the manifest names none, as on iOS.
    public static let defaultBaseName = "Default"
    /// A launch image is read whole into memory and copied for the notification server: larger
    /// files are refused (a splash PNG is tens of KiB).
    public static let maximumFileSize = 1 << 20
    /// The largest width or height accepted, in pixels.
    public static let maximumDimension: UInt32 = 4096
    /// The longest base name, in UTF-8 bytes: the file name adds a scheme and `.png` and must stay
    /// under the file system's 255.
    public static let maximumBaseNameBytes = 64

    /// `UILaunchImageFile` without a `.png` suffix, else `Default`.
    public var baseName: String
    /// Whether the manifest declared `UILaunchImageFile` (a declared base without any image is
    /// reported; the default one is not).
    public var declared: Bool
    /// The absolute paths of the checked images, by lowercased scheme.
    public var paths: [String: String]

    public init(baseName: String = LaunchImages.defaultBaseName, declared: Bool = false, paths: [String: String] = [:]) {
        self.baseName = baseName
        self.declared = declared
        self.paths = paths
    }

    /// `<base>-<scheme>.png`.
    public func fileName(forScheme scheme: String) -> String { "\(baseName)-\(scheme).png" }

    /// Why `name` (a `UILaunchImageFile` value without `.png`) is not a base name, or nil. A base
    /// name is a file name in the manifest's folder: no `/`, no leading `.`, not empty, short.
    public static func problem(inBaseName name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.contains("/") { return "contains '/': it is a file name beside the manifest, not a path" }
        if name.hasPrefix(".") { return "starts with '.'" }
        if name.utf8.count > maximumBaseNameBytes { return "is longer than \(maximumBaseNameBytes) bytes" }
        return nil
    }

    /// Why `bytes` are not a usable launch image, or nil: a PNG (its signature, then an `IHDR`
    /// chunk) of at most `maximumDimension` pixels a side.
    public static func problem(inPNG bytes: [UInt8]) -> String? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 24, bytes.starts(with: signature) else { return "is not a PNG image (no PNG signature)" }
        guard bytes[12..<16].elementsEqual("IHDR".utf8) else { return "is not a PNG image (no IHDR chunk first)" }
        func bigEndian(_ at: Int) -> UInt32 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        let (width, height) = (bigEndian(16), bigEndian(20))
        guard width > 0, height > 0 else { return "is a PNG of \(width)×\(height) pixels" }
        guard width <= maximumDimension, height <= maximumDimension else {
            return "is a PNG of \(width)×\(height) pixels, over \(maximumDimension) a side"
        }
        return nil
    }
}
