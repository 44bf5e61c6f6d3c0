import CourierNames

/// Who may call an app for one of its schemes (`CourierAllowedCallers` in a `CFBundleURLTypes`
/// entry) or drop files on it (`CourierAllowedDropCallers`): the app's own answer to "who may wake
/// me?", in the spirit of Android's permissions, which iOS lacks.
///
/// A caller is named by what the broker derives from its bus credentials: the bundle id of the
/// Courier app it is (the one that checked in from its unique name, or that Courier launched with
/// its pid), or nothing at all — a shell, `gdbus`, a desktop tool, a process an app spawned, a
/// relayed `org.freedesktop.Application.Open`: "not a Courier app". A rule is a list; a caller is
/// admitted when one entry admits it. The app itself is always admitted (it may open its own URLs).
///
/// A value with no I/O: the manifest parser builds it, the broker evaluates it before launching
/// anything, and `courier handlers --explain` prints it.
public struct CallerRule: Sendable, Hashable, CustomStringConvertible {
    /// One element of the list.
    public enum Entry: Sendable, Hashable, CustomStringConvertible {
        /// `Anyone`: every caller, identified or not (the default).
        case anyone
        /// `CourierApps`: any registered Courier app the broker has verified, and no other process.
        case courierApps
        /// A bundle identifier: that app only.
        case app(String)

        public var description: String {
            switch self {
            case .anyone: CallerRule.anyoneWord
            case .courierApps: CallerRule.courierAppsWord
            case .app(let id): id
            }
        }
    }

    /// The manifest word for every caller.
    public static let anyoneWord = "Anyone"
    /// The manifest word for every verified Courier app.
    public static let courierAppsWord = "CourierApps"

    public var entries: [Entry]
    /// Where the rule was declared (`CFBundleURLTypes[0].CourierAllowedCallers`); empty for the
    /// default, which no manifest wrote.
    public var keyPath: String

    public init(_ entries: [Entry], keyPath: String = "") {
        self.entries = entries
        self.keyPath = keyPath
    }

    /// What a manifest without the key means: anyone may call, as before caller rules existed.
    public static let anyone = CallerRule([.anyone])

    /// Whether every caller is admitted: nothing to check.
    public var admitsAnyone: Bool { entries.contains(.anyone) }

    /// Whether a caller is admitted. `caller` is the bundle id the broker derived from the caller's
    /// credentials, "" when it is not a Courier app; `app` is the bundle id of the app the rule
    /// belongs to (always admitted).
    public func admits(caller: String, app: String) -> Bool {
        if caller == app, !caller.isEmpty { return true }
        for entry in entries {
            switch entry {
            case .anyone: return true
            case .courierApps: if !caller.isEmpty { return true }
            case .app(let id): if id == caller, !caller.isEmpty { return true }
            }
        }
        return false
    }

    /// For people: "anyone", "Courier apps only (not other processes)", "only com.acme.notes,
    /// com.acme.mail" (the app itself is always admitted besides).
    public var description: String {
        if admitsAnyone { return "anyone" }
        if entries.contains(.courierApps) { return "Courier apps only (not other processes)" }
        return "only " + entries.map(\.description).joined(separator: ", ")
    }

    // MARK: Reading the manifest value

    /// A problem in a manifest's value: the key path inside it and what to write instead.
    public struct Problem: Sendable, Hashable {
        public var keyPath: String
        public var message: String
    }

    /// Reads the manifest value at `keyPath`: a string or an array of strings, each `Anyone`,
    /// `CourierApps` (any case) or a bundle identifier. Refuses — rather than guessing — anything
    /// else, an empty list included: a rule misread as "anyone" would open the app to every
    /// caller, one misread as "nobody" would cut its users off.
    /// - Returns: the rule and the warnings (redundant entries); or the problems, none empty.
    public static func parse(_ values: [(index: Int?, value: String)], keyPath: String) -> Result<(CallerRule, [Problem]), ProblemList> {
        let example = "e.g. <array><string>\(courierAppsWord)</string></array>, <array><string>com.example.app</string></array> or <string>\(anyoneWord)</string>"
        guard !values.isEmpty else {
            return .failure(ProblemList(problems: [Problem(keyPath: keyPath, message: "the list of allowed callers is empty, which would admit no caller but the app itself; list bundle ids, \(courierAppsWord) or \(anyoneWord) (\(example)), or remove the key to admit anyone")]))
        }
        var entries: [Entry] = []
        var problems: [Problem] = []
        var warnings: [Problem] = []
        for (index, raw) in values {
            let path = index.map { "\(keyPath)[\($0)]" } ?? keyPath
            if let variable = Identifiers.unresolvedBuildVariable(in: raw) {
                problems.append(Problem(keyPath: path, message: "'\(raw)' contains the unresolved build setting \(variable); write the final bundle id, \(courierAppsWord) or \(anyoneWord)"))
                continue
            }
            let word = raw.lowercased()
            let entry: Entry
            if word == anyoneWord.lowercased() {
                entry = .anyone
            } else if word == courierAppsWord.lowercased() {
                entry = .courierApps
            } else if let id = BundleIdentifier(validating: raw) {
                entry = .app(id.rawValue)
            } else {
                problems.append(Problem(keyPath: path, message: "'\(raw)' is neither a bundle identifier (reverse-DNS, e.g. com.acme.notes) nor \(courierAppsWord) or \(anyoneWord)\(suggestion(for: raw))"))
                continue
            }
            if entries.contains(entry) {
                warnings.append(Problem(keyPath: path, message: "'\(raw)' is listed twice; remove one"))
                continue
            }
            entries.append(entry)
        }
        guard problems.isEmpty else { return .failure(ProblemList(problems: problems)) }
        if entries.contains(.anyone), entries.count > 1 {
            warnings.append(Problem(keyPath: keyPath, message: "\(anyoneWord) admits every caller, so the other entries (\(entries.filter { $0 != .anyone }.map(\.description).joined(separator: ", "))) change nothing; remove \(anyoneWord) to admit only them"))
        } else if entries.contains(.courierApps), entries.count > 1 {
            warnings.append(Problem(keyPath: keyPath, message: "\(courierAppsWord) admits every Courier app, so the bundle ids listed beside it change nothing; remove \(courierAppsWord) to admit only them"))
        }
        return .success((CallerRule(entries, keyPath: keyPath), warnings))
    }

    /// The problems of a refused value (an `Error` so that `parse` can return a `Result`).
    public struct ProblemList: Error, Sendable, Hashable {
        public var problems: [Problem]
    }

    /// "; did you mean CourierApps?" for the usual misspellings.
    private static func suggestion(for raw: String) -> String {
        let squeezed = String(raw.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic })
        if ["courierapps", "courierapp", "courieronly", "apps", "courier"].contains(squeezed) { return "; did you mean \(courierAppsWord)?" }
        if ["everyone", "everybody", "all", "any", "anybody", ""].contains(squeezed) || raw == "*" { return "; did you mean \(anyoneWord)?" }
        return ""
    }
}
