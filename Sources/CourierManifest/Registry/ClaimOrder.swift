import CourierTypes
/// Who claimed each scheme and type first, in order. Persisted as
/// `$XDG_CONFIG_HOME/courier/claims.json` so that the last step of the decision (first claim) does
/// not depend on file names or on the order of a reload: a manifest added later cannot take a
/// scheme over by sorting earlier. An entry is removed only when its app is unregistered explicitly.
public struct ClaimOrder: Sendable, Hashable, Codable {
    /// Lowercased scheme → bundle identifiers, first claimant first.
    public var schemes: [String: [String]]
    /// Uniform type identifier → bundle identifiers, first claimant first.
    public var types: [String: [String]]

    public init(schemes: [String: [String]] = [:], types: [String: [String]] = [:]) {
        self.schemes = schemes
        self.types = types
    }

    /// Appends `bundleID` to the claimants of `key` unless it is there already. Returns whether it changed.
    @discardableResult
    public mutating func record(_ bundleID: String, for key: HandlerKey) -> Bool {
        switch key {
        case .scheme(let s):
            if schemes[s]?.contains(bundleID) ?? false { return false }
            schemes[s, default: []].append(bundleID)
        case .type(let t):
            if types[t]?.contains(bundleID) ?? false { return false }
            types[t, default: []].append(bundleID)
        }
        return true
    }

    /// The 0-based position of `bundleID` among the claimants of `key`.
    public func position(of bundleID: String, for key: HandlerKey) -> Int? {
        switch key {
        case .scheme(let s): return schemes[s]?.firstIndex(of: bundleID)
        case .type(let t): return types[t]?.firstIndex(of: bundleID)
        }
    }

    /// Forgets every claim of `bundleID` (explicit unregistration).
    public mutating func remove(_ bundleID: String) {
        for (k, v) in schemes where v.contains(bundleID) {
            let rest = v.filter { $0 != bundleID }
            schemes[k] = rest.isEmpty ? nil : rest
        }
        for (k, v) in types where v.contains(bundleID) {
            let rest = v.filter { $0 != bundleID }
            types[k] = rest.isEmpty ? nil : rest
        }
    }

    /// `other`'s order first (it is what was persisted before), then this one's new claimants;
    /// claimants in `removed` are dropped.
    public func merged(over other: ClaimOrder, removing removed: Set<String> = []) -> ClaimOrder {
        func merge(_ a: [String: [String]], _ b: [String: [String]]) -> [String: [String]] {
            var out = b
            for (k, ids) in a {
                var list = out[k] ?? []
                for id in ids where !list.contains(id) { list.append(id) }
                out[k] = list
            }
            for (k, v) in out {
                let rest = v.filter { !removed.contains($0) }
                out[k] = rest.isEmpty ? nil : rest
            }
            return out
        }
        return ClaimOrder(schemes: merge(schemes, other.schemes), types: merge(types, other.types))
    }
}
