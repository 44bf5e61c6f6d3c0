import CourierNames
import DBus
#if canImport(Glibc)
import Glibc
#endif

/// Files handed over ahead of a drop (`Broker1.StageFiles`), for drops with more files than one
/// message may carry: a bus limits the descriptors per message (dbus-daemon: 16 by default; the
/// kernel: 253) and disconnects a client that sends more. The client sends the files in batches,
/// each answered with a token, then `DropFiles`/`OpenFiles` with the last batch and the tokens
/// (option `staged`, in order): the drop is then one drop of all of them.
///
/// A batch belongs to the unique name that staged it and is only taken by that name's drop; it
/// is closed when taken and dropped, or when that name leaves the bus. One caller may hold at
/// most `limit` staged files (the drop's own file limit): beyond, `LimitsExceeded`.
struct StagedFiles: Sendable {
    private struct Batch: Sendable {
        let owner: String
        /// Descriptors this broker owns (received duplicates), with their suggested names.
        let descriptors: [Int32]
        let names: [String]
    }

    let limit: Int
    private var batches: [String: Batch] = [:]
    private var nextToken: UInt64 = 1

    init(limit: Int) { self.limit = limit }

    /// Keeps `descriptors` (owned from now on) for `owner`; the token its drop names them by.
    mutating func stage(_ descriptors: [Int32], names: [String], owner: String) throws(CourierError) -> String {
        let held = batches.values.filter { $0.owner == owner }.reduce(0) { $0 + $1.descriptors.count }
        guard held + descriptors.count <= limit else {
            descriptors.forEach { close($0) }
            throw CourierError(.limitsExceeded, "\(held + descriptors.count) files staged for one drop; a drop takes at most \(limit) files. Nothing was delivered: send fewer files at once")
        }
        let token = "\(nextToken)"
        nextToken += 1
        batches[token] = Batch(owner: owner, descriptors: descriptors, names: names)
        return token
    }

    /// Takes the batches `tokens` of `owner`, in order (the caller closes the descriptors).
    mutating func take(_ tokens: [String], owner: String) throws(CourierError) -> (descriptors: [Int32], names: [String]) {
        guard tokens.allSatisfy({ batches[$0]?.owner == owner }), Set(tokens).count == tokens.count else {
            throw CourierError(.invalidArguments, "the option 'staged' names batches this connection did not stage with StageFiles (or names one twice); stage the files again")
        }
        var descriptors: [Int32] = []
        var names: [String] = []
        for token in tokens {
            guard let batch = batches.removeValue(forKey: token) else { continue }
            descriptors += batch.descriptors
            names += batch.names
        }
        return (descriptors, names)
    }

    /// `owner` left the bus: its batches are closed.
    mutating func forget(_ owner: String) {
        for (token, batch) in batches where batch.owner == owner {
            batch.descriptors.forEach { close($0) }
            batches[token] = nil
        }
    }

    var isEmpty: Bool { batches.isEmpty }
}
