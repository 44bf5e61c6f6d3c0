extension Registry {
    /// The claimed schemes one edit (an insertion, a deletion, a substitution or two neighbours
    /// swapped) away from `scheme`, for "did you mean" in errors: `todolst` → `todolist`.
    public func schemes(near scheme: String) -> [String] {
        let typed = Array(scheme.lowercased().utf8)
        return claimedSchemes.filter { $0 != scheme.lowercased() && Self.isOneEditApart(typed, Array($0.utf8)) }
    }

    /// The reason a URL of `scheme` has no Courier handler, and what to do: for a reserved scheme
    /// (https, mailto, …) that no app may claim without the user's choice, never "register an app".
    public func noHandlerAdvice(forScheme scheme: String) -> String {
        let key = scheme.lowercased()
        if reservedSchemes.contains(key) {
            return "\(key) is reserved for the desktop's own handler: a Courier app gets it only when you choose one with `courier default \(key) BUNDLE_ID`, and `courier open` without --no-fallback hands such URLs to the desktop"
        }
        let near = schemes(near: key)
        if !near.isEmpty {
            return "did you mean \(near.map { "\($0):" }.joined(separator: " or "))? (`courier dump` lists the registered schemes)"
        }
        return "register an app that declares it with `courier register MANIFEST`"
    }

    static func isOneEditApart(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        if a.count == b.count {
            let differences = a.indices.filter { a[$0] != b[$0] }
            if differences.count == 1 { return true }
            return differences.count == 2 && differences[1] == differences[0] + 1
                && a[differences[0]] == b[differences[1]] && a[differences[1]] == b[differences[0]]
        }
        let (short, long) = a.count < b.count ? (a, b) : (b, a)
        guard long.count == short.count + 1 else { return false }
        var i = 0
        while i < short.count && short[i] == long[i] { i += 1 }
        return short[i...] == long[(i + 1)...]
    }
}
