import CourierNames
import CourierTypes
import Glibc

extension LaunchImages {
    /// Why a launch image file cannot be used, in words for a diagnostic or a log line.
    public struct Problem: Error, Sendable, Hashable {
        public let message: String
        /// The file does not exist (not a problem for the default base name).
        public let missing: Bool
    }

    /// The bytes of the launch image at `path`: a regular file (a symbolic link is not followed, a
    /// FIFO or device is never waited on), at most `maximumFileSize` bytes, a PNG that
    /// `problem(inPNG:)` accepts.
    public static func read(_ path: String) -> Result<[UInt8], Problem> {
        switch SafeFileReader.read(path: path, limit: maximumFileSize, followingSymlinks: false) {
        case .success(let bytes):
            if let problem = problem(inPNG: bytes) { return .failure(Problem(message: problem, missing: false)) }
            return .success(bytes)
        case .failure(.unreadable(let code, _)) where code == ENOENT:
            return .failure(Problem(message: "does not exist", missing: true))
        case .failure(.unreadable(let code, _)) where code == ELOOP:
            return .failure(Problem(message: "is a symbolic link; launch images are read only from regular files beside the manifest", missing: false))
        case .failure(.unreadable(_, let reason)):
            return .failure(Problem(message: "cannot be read: \(reason)", missing: false))
        case .failure(.notRegularFile(let kind)):
            return .failure(Problem(message: "is \(kind), not a regular file", missing: false))
        case .failure(.tooLarge(let size)):
            return .failure(Problem(message: "is \(size) bytes, over the \(maximumFileSize)-byte limit for launch images", missing: false))
        }
    }

    /// Looks for `<base>-<scheme>.png` beside the manifest at `manifestPath` for each scheme and
    /// keeps those `read` accepts. Every other file is reported, and so is a declared base name
    /// with no image at all; a missing image of the default base name is not. `names`: the
    /// folder's `.png` names when its listing is at hand (a name not among them is missing
    /// without a look).
    mutating func find(beside manifestPath: String, schemes: [String], among names: Set<String>? = nil, diagnostics: inout [ManifestDiagnostic]) {
        let folder = Paths.directory(of: manifestPath)
        let key = ManifestParser.launchImageFileKey
        var missing: [String] = []
        for scheme in schemes {
            let path = Paths.join(folder, fileName(forScheme: scheme))
            if let names, !names.contains(fileName(forScheme: scheme)) {
                missing.append(fileName(forScheme: scheme))
                continue
            }
            switch Self.read(path) {
            case .success:
                paths[scheme] = path
            case .failure(let problem) where problem.missing:
                missing.append(fileName(forScheme: scheme))
            case .failure(let problem):
                diagnostics.append(ManifestDiagnostic(
                    file: manifestPath, keyPath: key,
                    message: "the launch image \(path) \(problem.message); replace it with a PNG of at most \(Self.maximumDimension) pixels a side and \(Self.maximumFileSize) bytes — URLs of \(scheme) launch the app without it",
                    severity: .warning, code: .invalidLaunchImage))
            }
        }
        if declared, paths.isEmpty, !missing.isEmpty {
            diagnostics.append(ManifestDiagnostic(
                file: manifestPath, keyPath: key,
                message: "\(key) is '\(baseName)' but no launch image is beside the manifest in \(folder) (looked for \(missing.joined(separator: ", "))); add one or remove the key — the app launches without a launch image",
                severity: .warning, code: .invalidLaunchImage))
        }
    }
}
