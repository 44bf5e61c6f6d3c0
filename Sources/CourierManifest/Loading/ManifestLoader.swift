import CourierTypes
import CourierNames
import Foundation

/// Reads manifests from files and folders: the only part of the manifest machinery that touches
/// the file system (besides the watcher).
///
/// Every file is read with ``SafeFileReader`` (no blocking on FIFOs or devices, size-limited),
/// decoded as an XML or binary property list, and parsed by ``ManifestParser``. A file's problems
/// are reported as diagnostics and never stop the other files.
public struct ManifestLoader: Sendable {
    /// The default size limit: far above any real Info.plist (tens of KiB), low enough that a
    /// stray large file in a manifest folder costs nothing.
    public static let defaultMaximumFileSize = 1 << 20

    public var maximumFileSize: Int
    public var parser: ManifestParser

    public init(maximumFileSize: Int = ManifestLoader.defaultMaximumFileSize, parser: ManifestParser = ManifestParser()) {
        self.maximumFileSize = maximumFileSize
        self.parser = parser
    }

    /// What one file gave.
    public struct FileResult: Sendable {
        /// The absolute path.
        public var path: String
        /// nil when the file was refused.
        public var manifest: Manifest?
        public var diagnostics: [ManifestDiagnostic]
    }

    /// Whether a folder entry is a manifest candidate: `*.plist`, not hidden, not an editor's backup.
    public static func isManifestFileName(_ name: String) -> Bool {
        name.hasSuffix(".plist") && !name.hasPrefix(".") && name.count > ".plist".count
    }

    /// Loads one file. `path` is made absolute.
    public func load(file path: String) -> FileResult {
        load(file: path, pngNames: nil)
    }

    /// `pngNames`: the `.png` names in the file's folder when the caller listed it, so that launch
    /// images are looked for only among them (no failed `open` per scheme per manifest).
    func load(file path: String, pngNames: Set<String>?) -> FileResult {
        let path = Paths.absolute(path)
        return loaded(SafeFileReader.read(path: path, limit: maximumFileSize), path: path, pngNames: pngNames)
    }

    /// Loads the file open as `descriptor` as if it were `path` (absolute): what a caller passes
    /// when the reader must see only what the caller itself could open (`RegisterManifestFile`).
    public func load(descriptor: Int32, path: String) -> FileResult {
        loaded(SafeFileReader.read(descriptor: descriptor, limit: maximumFileSize), path: path)
    }

    private func loaded(_ read: Result<[UInt8], SafeFileReader.Failure>, path: String, pngNames: Set<String>? = nil) -> FileResult {
        func refuse(_ code: ManifestDiagnostic.Code, _ message: String) -> FileResult {
            FileResult(path: path, manifest: nil, diagnostics: [ManifestDiagnostic(file: path, keyPath: "", message: message, severity: .error, code: code)])
        }
        switch read {
        case .success(let bytes):
            return decode(bytes, path: path, pngNames: pngNames)
        case .failure(.unreadable(_, let reason)):
            return refuse(.unreadable, "cannot read the file: \(reason); check that it exists and that its permissions let you read it")
        case .failure(.notRegularFile(let kind)):
            return refuse(.notRegularFile, "this is \(kind), not a regular file; manifests must be plain files — remove it or replace it with the Info.plist file itself")
        case .failure(.tooLarge(let size)):
            return refuse(.tooLarge, "the file is \(size) bytes, over the \(maximumFileSize)-byte limit for manifests; an Info.plist is a few KiB — check that this is the right file")
        }
    }

    /// Decodes and parses property-list bytes as if read from `path` (absolute).
    public func decode(_ bytes: [UInt8], path: String) -> FileResult {
        decode(bytes, path: path, pngNames: nil)
    }

    func decode(_ bytes: [UInt8], path: String, pngNames: Set<String>?) -> FileResult {
        switch Self.propertyList(bytes) {
        case .failure(let message):
            return FileResult(path: path, manifest: nil, diagnostics: [ManifestDiagnostic(file: path, keyPath: "", message: message.text, severity: .error, code: .notPropertyList)])
        case .success(let value):
            var parsed = parser.parse(value, path: path)
            if var manifest = parsed.manifest, var images = manifest.launchImages, path.hasPrefix("/") {
                images.find(beside: path, schemes: manifest.schemes, among: pngNames, diagnostics: &parsed.diagnostics)
                manifest.launchImages = images
                parsed.manifest = manifest
            }
            return FileResult(path: path, manifest: parsed.manifest, diagnostics: parsed.diagnostics)
        }
    }

    /// Why bytes are not a property list, as a diagnostic says it.
    public struct NotPropertyList: Error, Sendable {
        public let text: String
    }

    /// The top-level value of an XML or binary property list; the failure says why it is not one.
    public static func propertyList(_ bytes: [UInt8]) -> Result<PropertyListValue, NotPropertyList> {
        let notPlist = "the file is not a property list (XML or binary); write it as an Info.plist <plist><dict>…</dict></plist> or convert it with plutil"
        guard !bytes.isEmpty else { return .failure(NotPropertyList(text: "the file is empty; " + notPlist)) }
        let isBinary = bytes.starts(with: Array("bplist".utf8))
        if !isBinary, let fast = try? XMLPropertyListParser.parse(bytes) { return .success(fast) }
        // Binary plists, other encodings, and files the direct parser refused: Foundation decides.
        let object: Any
        do {
            var format = PropertyListSerialization.PropertyListFormat.xml
            object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: &format)
            // Foundation also accepts the old OpenStep text format, which would take any word
            // for a string; only XML and binary property lists are manifests.
            guard format == .xml || format == .binary else { return .failure(NotPropertyList(text: notPlist + detail(bytes))) }
        } catch {
            return .failure(NotPropertyList(text: notPlist + detail(bytes, error)))
        }
        guard let converted = PropertyListValue(foundation: object) else { return .failure(NotPropertyList(text: notPlist)) }
        return .success(converted)
    }

    /// What a set of folders gave, file by file, in precedence order.
    public struct FolderResult: Sendable {
        public var files: [FileResult]
        /// Problems with the folders themselves (missing explicit folder, unreadable folder).
        public var diagnostics: [ManifestDiagnostic]
    }

    /// Loads every `*.plist` in each folder (not recursive); an entry that is a file rather than a
    /// folder is loaded as a single manifest, whatever its name. Folders are taken in order (earlier
    /// folders take precedence); files in a folder in byte order of their names. A missing folder
    /// is reported only when `reportMissing` says so (the default folders often do not exist).
    /// Files are decoded in parallel; the result order does not depend on timing.
    public func load(folders: [String], reportMissing: Bool = true) -> FolderResult {
        var paths: [String] = []
        var pngNames: [String: Set<String>] = [:]
        var diagnostics: [ManifestDiagnostic] = []
        var unnamed: [FileResult] = []
        var seenFolders = Set<String>()
        for folder in folders {
            let folder = Paths.absolute(folder)
            guard seenFolders.insert(folder).inserted else { continue }
            if !Paths.isDirectory(folder) && Paths.exists(folder) {
                // A single manifest file named where a folder is expected: load just that file.
                paths.append(folder)
                continue
            }
            switch DirectoryListing.entries(in: folder) {
            case .success(let entries):
                pngNames[folder] = Set(entries.lazy.filter { $0.isUTF8 && $0.name.hasSuffix(".png") }.map(\.name))
                for entry in entries where Self.isManifestFileName(entry.name) {
                    let path = Paths.join(folder, entry.name)
                    if entry.isUTF8 {
                        paths.append(path)
                    } else {
                        // Registered apps are known by their manifest's path, which is text: a
                        // name that is not UTF-8 cannot be one (nor be opened by a String path).
                        let message = "the file name is not valid UTF-8 (shown with \u{FFFD} for the bytes that are not), so Courier cannot name it; rename it, e.g. to BUNDLE_ID.plist — it is not loaded"
                        unnamed.append(FileResult(path: path, manifest: nil, diagnostics: [ManifestDiagnostic(file: path, keyPath: "", message: message, severity: .error, code: .invalidFileName)]))
                    }
                }
            case .failure(.missing):
                if reportMissing {
                    diagnostics.append(ManifestDiagnostic(file: folder, keyPath: "", message: "the manifest folder does not exist; create it or fix the path", severity: .warning, code: .missingFolder))
                }
            case .failure(.unreadable(let reason)):
                diagnostics.append(ManifestDiagnostic(file: folder, keyPath: "", message: "cannot list the manifest folder: \(reason); check its permissions", severity: .error, code: .unreadable))
            }
        }
        return FolderResult(files: load(files: paths, pngNames: pngNames) + unnamed, diagnostics: diagnostics)
    }

    /// Loads the given files in parallel, keeping their order.
    public func load(files paths: [String]) -> [FileResult] {
        load(files: paths, pngNames: [:])
    }

    /// `pngNames`: the `.png` names of the folders the caller listed, by folder.
    func load(files paths: [String], pngNames: [String: Set<String>]) -> [FileResult] {
        let results = ResultSlots<FileResult>(count: paths.count)
        let loader = self
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let chunk = (paths.count + workers - 1) / max(workers, 1)
        DispatchQueue.concurrentPerform(iterations: paths.isEmpty ? 0 : workers) { worker in
            let start = worker * chunk
            let end = min(start + chunk, paths.count)
            guard start < end else { return }
            for i in start..<end { results.set(i, loader.load(file: paths[i], pngNames: pngNames[Paths.directory(of: Paths.absolute(paths[i]))])) }
        }
        return results.values()
    }

    /// The most useful reason a file is not a plist: the direct parser's (it has a line number)
    /// for XML-looking text, else Foundation's.
    private static func detail(_ bytes: [UInt8], _ error: (any Error)? = nil) -> String {
        if !bytes.starts(with: Array("bplist".utf8)) {
            do {
                _ = try XMLPropertyListParser.parse(bytes)
            } catch {
                return " (\(error))"
            }
        }
        return error.map { " (\(describe($0)))" } ?? ""
    }

    static func describe(_ error: any Error) -> String {
        let ns = error as NSError
        if let detail = ns.userInfo[NSDebugDescriptionErrorKey] as? String { return detail }
        return ns.localizedDescription
    }
}

/// Fixed slots written once each from concurrent workers (each index by exactly one worker).
private final class ResultSlots<T>: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<T?>
    init(count: Int) {
        buffer = .allocate(capacity: count)
        buffer.initialize(repeating: nil)
    }
    deinit {
        buffer.deinitialize()
        buffer.deallocate()
    }
    func set(_ i: Int, _ value: T) { buffer[i] = value }
    func values() -> [T] { buffer.map { $0! } }
}
