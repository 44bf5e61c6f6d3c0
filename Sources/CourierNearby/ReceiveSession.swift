import Foundation

/// The one session a receiver serves at a time (protocol v2 allows one; a second `prepare-upload`
/// gets 409): who sent it, from where, and each accepted file with its token, its target app and
/// where its upload stands. A value; ``NearbyReceiver`` keeps it behind its lock.
struct ReceiveSession: Sendable {
    enum FileState: Sendable, Equatable {
        case waiting
        case uploading
        case delivered(String)
        case failed(String)
    }

    struct File: Sendable {
        var metadata: NearbyFile
        var token: String
        var bundleID: String
        var state: FileState = .waiting
    }

    let id: String
    let sender: NearbySender
    var files: [String: File]
    var lastActivity: ContinuousClock.Instant

    /// Every file delivered or failed: the session is over.
    var isFinished: Bool {
        files.values.allSatisfy {
            switch $0.state {
            case .delivered, .failed: true
            case .waiting, .uploading: false
            }
        }
    }

    var isUploading: Bool { files.values.contains { $0.state == .uploading } }

    /// The session's log line: who, what, where it went.
    var summary: String {
        let outcomes = files.values.sorted { $0.metadata.fileName < $1.metadata.fileName }.map { file -> String in
            switch file.state {
            case .delivered(let path): "\(file.metadata.fileName.debugDescription) → \(path)"
            case .failed(let why): "\(file.metadata.fileName.debugDescription) for \(file.bundleID) failed: \(why)"
            case .waiting, .uploading: "\(file.metadata.fileName.debugDescription) for \(file.bundleID) not sent"
            }
        }
        return "session \(id.prefix(8)) from \(sender): " + outcomes.joined(separator: "; ")
    }

    /// A random token: 128 bits, hex.
    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }
}
