public import CourierTypes
import CourierNames

/// The routing table: every registered manifest, indexed by scheme and by type, with the user's
/// defaults and the persisted first-claim order. A value: pure, no file system, no bus.
///
/// Lookups are dictionary accesses by scheme (O(1) in the number of apps); a type lookup walks
/// the type's supertypes (bounded by the type graph, not by the number of apps).
public struct Registry: Sendable {
    /// Schemes that belong to the system; a manifest cannot claim them unless the user makes the
    /// app the default for that scheme (`courier default http com.example.browser`).
    public static let defaultReservedSchemes: Set<String> = [
        "http", "https", "file", "mailto", "tel", "sms", "data", "javascript", "about", "blob", "courier",
    ]

    /// Bundle identifier → manifest.
    public private(set) var applications: [String: Manifest] = [:]
    /// Manifest path → bundle identifier.
    private var pathIndex: [String: String] = [:]
    /// D-Bus name (`BundleIdentifier.busName`) → bundle identifier: two apps whose identifiers map
    /// to one bus name (`com.acme.a-b`, `com.acme.a_b`) could not both be reached on the bus.
    private var busNameIndex: [String: String] = [:]
    /// Scheme → claiming bundle identifiers (any rank).
    private var schemeIndex: [String: [String]] = [:]
    /// Canonical type identifier → claiming bundle identifiers (document types).
    private var typeIndex: [String: [String]] = [:]
    /// The conformance graph, including the apps' exported and imported types.
    public private(set) var types: TypeGraph
    private let baseTypes: TypeGraph
    var baseTypesValue: TypeGraph { baseTypes }
    public var preferences: RegistryPreferences
    public private(set) var claimOrder: ClaimOrder
    /// Bundle identifiers unregistered explicitly since the claim order was last saved.
    public internal(set) var unregisteredSinceSave: Set<String> = []
    public var reservedSchemes: Set<String>
    /// Diagnostics of each file read (path → diagnostics), and of the folders.
    private var fileDiagnostics: [String: [ManifestDiagnostic]] = [:]
    var folderDiagnostics: [ManifestDiagnostic] = []

    public init(
        types: TypeGraph = TypeGraph(), preferences: RegistryPreferences = RegistryPreferences(),
        claimOrder: ClaimOrder = ClaimOrder(), reservedSchemes: Set<String> = Registry.defaultReservedSchemes
    ) {
        self.types = types
        self.baseTypes = types
        self.preferences = preferences
        self.claimOrder = claimOrder
        self.reservedSchemes = reservedSchemes
    }

    // MARK: - Queries

    /// The app with this bundle identifier.
    public func application(bundleIdentifier: String) -> Manifest? { applications[bundleIdentifier] }

    /// The app whose manifest is this file (absolute path).
    public func application(atPath path: String) -> Manifest? { pathIndex[path].flatMap { applications[$0] } }

    /// Every app, sorted by bundle identifier.
    public var sortedApplications: [Manifest] {
        applications.values.sorted { $0.bundleIdentifier < $1.bundleIdentifier }
    }

    /// Whether some app claims `scheme` (lowercased).
    func isClaimed(scheme: String) -> Bool { schemeIndex[scheme] != nil }

    /// Every scheme some app claims, sorted.
    public var claimedSchemes: [String] { schemeIndex.keys.sorted() }

    /// Every type some app claims in its document types, sorted.
    public var claimedTypes: [String] { typeIndex.keys.sorted() }

    /// The candidates for `scheme` (any case) in decision order, with explanations.
    public func handlers(forScheme scheme: String) -> HandlerResolution {
        let scheme = scheme.lowercased()
        let key = HandlerKey.scheme(scheme)
        guard Identifiers.isValidScheme(scheme) else {
            return HandlerResolution(key: key, candidates: [], problem: "invalid: '\(scheme)' is not a URL scheme (a letter, then letters, digits, '+', '-' or '.')")
        }
        let userDefault = preferences.schemeDefaults[scheme]
        let desktopDefault = preferences.desktopSchemeDefaults[scheme]
        let reserved = reservedSchemes.contains(scheme)
        var entries: [Entry] = []
        for id in schemeIndex[scheme] ?? [] {
            guard let app = applications[id], let urlType = app.urlType(forScheme: scheme) else { continue }
            var status: HandlerCandidate.Status = .alternative
            if urlType.rank == .none { status = .rankNone }
            if reserved && userDefault != id { status = .reserved }
            if desktopDefault != nil && status == .alternative { status = .desktopDefault }
            if preferences.disabled.contains(id) { status = .disabled }
            entries.append(Entry(
                id: id, rank: urlType.rank, role: urlType.role, isDefault: userDefault == id,
                claim: claimOrder.position(of: id, for: key), matched: nil, distance: 0, status: status,
                callers: app.callers(forScheme: scheme)))
        }
        return resolve(key: key, entries: entries, desktopDefault: desktopDefault)
    }

    /// The candidates for a file of type `identifier`: apps whose document types list that type or
    /// one it conforms to.
    public func handlers(forType identifier: String) -> HandlerResolution {
        let uti = types.canonical(identifier)
        let key = HandlerKey.type(uti)
        guard Identifiers.isValidTypeIdentifier(uti) || types.isKnown(uti) else {
            return HandlerResolution(key: key, candidates: [], problem: "invalid: '\(identifier)' is not a uniform type identifier (e.g. public.plain-text)")
        }
        let supertypes = types.supertypes(of: uti)
        // The default of the closest type that has one, Courier's or the desktop's.
        var userDefault: String?
        var desktopDefault: String?
        for s in supertypes {
            if let d = preferences.typeDefaults[s.identifier] { userDefault = d; break }
            if let d = preferences.desktopTypeDefaults[s.identifier] { desktopDefault = d; break }
        }
        var best: [String: Entry] = [:]
        var order: [String] = []
        for (supertype, distance) in supertypes {
            for id in typeIndex[supertype] ?? [] {
                guard let app = applications[id] else { continue }
                for doc in app.documentTypes where doc.contentTypes.contains(where: { types.canonical($0) == supertype }) {
                    let entry = Entry(
                        id: id, rank: doc.rank, role: doc.role, isDefault: userDefault == id,
                        claim: claimOrder.position(of: id, for: .type(supertype)), matched: supertype,
                        distance: distance, status: preferences.disabled.contains(id) ? .disabled : doc.rank == .none ? .rankNone : desktopDefault != nil ? .desktopDefault : .alternative,
                        callers: app.dropCallers)
                    if let old = best[id] {
                        if entry.rank > old.rank || (entry.rank == old.rank && entry.distance < old.distance) { best[id] = entry }
                    } else {
                        best[id] = entry
                        order.append(id)
                    }
                }
            }
        }
        return resolve(key: key, entries: order.map { best[$0]! }, desktopDefault: desktopDefault)
    }

    /// The document type of `bundleIdentifier` that accepts files of type `identifier`, if any
    /// (the Inbox's check before a drop is written).
    public func documentType(of bundleIdentifier: String, accepting identifier: String) -> DocumentTypeDeclaration? {
        guard let app = applications[bundleIdentifier] else { return nil }
        let supertypes = types.supertypes(of: identifier)
        var best: (DocumentTypeDeclaration, Int)?
        for doc in app.documentTypes {
            for t in doc.contentTypes {
                if let hit = supertypes.first(where: { $0.identifier == types.canonical(t) }) {
                    if best == nil || hit.distance < best!.1 { best = (doc, hit.distance) }
                }
            }
        }
        return best?.0
    }

    // MARK: - Deciding

    struct Entry {
        var id: String
        var rank: HandlerRank
        var role: HandlerRole
        var isDefault: Bool
        var claim: Int?
        var matched: String?
        var distance: Int
        var status: HandlerCandidate.Status
        var callers: CallerRule
    }

    private func resolve(key: HandlerKey, entries: [Entry], desktopDefault: String?) -> HandlerResolution {
        let eligible = entries.filter { $0.status == .alternative }.sorted(by: Self.precedes)
        let ineligible = entries.filter { $0.status != .alternative }.sorted(by: Self.precedes)
        var candidates: [HandlerCandidate] = []
        let winner = eligible.first
        for (i, e) in eligible.enumerated() {
            let text = i == 0 ? "chosen: " + Self.whyChosen(e, others: Array(eligible.dropFirst()), key: key) : "lost to \(winner!.id): " + Self.whyLost(e, to: winner!, key: key)
            candidates.append(candidate(e, status: i == 0 ? .chosen : .alternative, explanation: text))
        }
        for e in ineligible {
            let text: String
            switch e.status {
            case .rankNone:
                text = "never chosen: its LSHandlerRank is None"
            case .desktopDefault:
                text = "not chosen: the user's default is the desktop's \(desktopDefault ?? "application"), so Courier hands \(key) to the desktop; `courier default` with this app's id gives it back"
            case .disabled:
                text = "not routed to: the user disabled it (`courier enable \(e.id)` takes it back)"
            default:
                if case .scheme(let s) = key {
                    text = "refused: '\(s)' belongs to the system; allow it with `courier default \(s) \(e.id)`"
                } else {
                    text = "refused"
                }
            }
            candidates.append(candidate(e, status: e.status, explanation: text))
        }
        return HandlerResolution(key: key, candidates: candidates, problem: nil, desktopDefault: desktopDefault)
    }

    private func candidate(_ e: Entry, status: HandlerCandidate.Status, explanation: String) -> HandlerCandidate {
        HandlerCandidate(
            bundleIdentifier: e.id, status: status, rank: e.rank, role: e.role, isUserDefault: e.isDefault,
            claimPosition: e.claim.map { $0 + 1 }, matchedType: e.matched, distance: e.distance, explanation: explanation,
            callers: e.callers)
    }

    /// The decision order: default, rank, specificity (types), first claim, then bundle id so
    /// that the order is total even for claims not yet recorded.
    static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        if a.isDefault != b.isDefault { return a.isDefault }
        if a.rank != b.rank { return a.rank > b.rank }
        if a.distance != b.distance { return a.distance < b.distance }
        switch (a.claim, b.claim) {
        case let (x?, y?) where x != y: return x < y
        case (_?, nil): return true
        case (nil, _?): return false
        default: return a.id < b.id
        }
    }

    private static func whyChosen(_ e: Entry, others: [Entry], key: HandlerKey) -> String {
        if e.isDefault { return "the user's default" }
        guard let next = others.first else { return "the only candidate (rank \(e.rank.rawValue))" }
        if e.rank != next.rank { return "highest rank (\(e.rank.rawValue))" }
        if e.distance != next.distance { return "most specific declared type (\(e.matched ?? ""))" }
        if let claim = e.claim { return "first to claim \(subject(key)) (claim #\(claim + 1), rank \(e.rank.rawValue) like the others)" }
        return "first by bundle identifier (rank \(e.rank.rawValue) like the others, no claim recorded)"
    }

    private static func whyLost(_ e: Entry, to w: Entry, key: HandlerKey) -> String {
        if w.isDefault { return "the user chose \(w.id) as the default" }
        if e.rank != w.rank { return "rank \(e.rank.rawValue) is below \(w.rank.rawValue)" }
        if e.distance != w.distance { return "it declares \(e.matched ?? "a broader type"), less specific than \(w.matched ?? "")" }
        if let wc = w.claim, let ec = e.claim { return "same rank \(e.rank.rawValue); \(w.id) claimed \(subject(key)) first (claim #\(wc + 1), this app #\(ec + 1))" }
        return "same rank \(e.rank.rawValue); ordered by bundle identifier"
    }

    private static func subject(_ key: HandlerKey) -> String {
        switch key {
        case .scheme(let s): return "'\(s)'"
        case .type(let t): return t
        }
    }

    // MARK: - Changing

    /// Adds `manifest` (with the diagnostics of its file). An app with the same bundle identifier
    /// from the same file is replaced; from another file it is refused unless `replacing` is set.
    @discardableResult
    public mutating func register(_ manifest: Manifest, diagnostics: [ManifestDiagnostic] = [], replacing: Bool = false) throws(RegistryError) -> RegistryChange {
        let manifest = manifest.normalized()
        if let existing = applications[manifest.bundleIdentifier.rawValue], existing.path != manifest.path, !replacing {
            throw RegistryError(.duplicateBundleIdentifier, "\(manifest.bundleIdentifier) is already registered from \(existing.path); unregister it first or change the CFBundleIdentifier of \(manifest.path)")
        }
        if let other = busNameCollision(manifest.bundleIdentifier.rawValue), pathIndex[manifest.path] != other {
            throw RegistryError(.busNameCollision, busNameCollisionMessage(manifest.bundleIdentifier.rawValue, other, file: manifest.path))
        }
        let old = applications[manifest.bundleIdentifier.rawValue]
        if let oldPathApp = pathIndex[manifest.path], oldPathApp != manifest.bundleIdentifier.rawValue {
            // The file now declares another bundle id: the old app goes.
            remove(oldPathApp)
        }
        if old != nil { remove(manifest.bundleIdentifier.rawValue) }
        insert(manifest)
        if old != nil || manifest.exportedTypes.count + manifest.importedTypes.count > 0 { rebuildTypes() }
        fileDiagnostics[manifest.path] = diagnostics.isEmpty ? nil : diagnostics
        var change = RegistryChange()
        if old == nil { change.added = [manifest.bundleIdentifier.rawValue] } else if old != manifest { change.updated = [manifest.bundleIdentifier.rawValue] }
        change.schemes = Array(Set(manifest.schemes + (old?.schemes ?? []))).sorted()
        change.types = Array(Set((manifest.documentTypes + (old?.documentTypes ?? [])).flatMap(\.contentTypes))).sorted()
        change.diagnostics = diagnostics
        if old == manifest { change.schemes = []; change.types = [] }
        return change
    }

    /// Removes an app and forgets its claims in the first-claim order (an explicit act of the user).
    @discardableResult
    public mutating func unregister(bundleIdentifier: String) throws(RegistryError) -> RegistryChange {
        guard let old = applications[bundleIdentifier] else {
            throw RegistryError(.unknownApplication, "no app with bundle identifier \(bundleIdentifier) is registered; `courier dump` lists them")
        }
        remove(bundleIdentifier)
        fileDiagnostics[old.path] = nil
        claimOrder.remove(bundleIdentifier)
        unregisteredSinceSave.insert(bundleIdentifier)
        if !old.exportedTypes.isEmpty || !old.importedTypes.isEmpty { rebuildTypes() }
        var change = RegistryChange()
        change.removed = [bundleIdentifier]
        change.schemes = old.schemes.sorted()
        change.types = Array(Set(old.documentTypes.flatMap(\.contentTypes))).sorted()
        return change
    }

    /// Makes `bundleIdentifier` the user's default for `scheme`. It must claim the scheme with a
    /// rank other than None; for a system scheme this is also the permission to handle it.
    @discardableResult
    public mutating func setDefault(_ bundleIdentifier: String, forScheme scheme: String) throws(RegistryError) -> RegistryChange {
        let scheme = scheme.lowercased()
        guard Identifiers.isValidScheme(scheme) else {
            throw RegistryError(.invalidScheme, "'\(scheme)' is not a URL scheme; give the scheme alone, e.g. todolist")
        }
        guard let app = applications[bundleIdentifier] else {
            throw RegistryError(.unknownApplication, "no app with bundle identifier \(bundleIdentifier) is registered; `courier dump` lists them")
        }
        guard let urlType = app.urlType(forScheme: scheme), urlType.rank != .none else {
            let claimants = handlers(forScheme: scheme).candidates.map(\.bundleIdentifier)
            throw RegistryError(.notACandidate, "\(bundleIdentifier) does not claim '\(scheme)'\(app.urlType(forScheme: scheme) != nil ? " with a rank other than None" : ""); candidates: \(claimants.isEmpty ? "none" : claimants.joined(separator: ", "))")
        }
        return choose(bundleIdentifier, for: scheme, in: \.schemeDefaults, instead: \.desktopSchemeDefaults)
    }

    /// Makes `bundleIdentifier` the user's default for files of type `identifier` (and types conforming to it).
    @discardableResult
    public mutating func setDefault(_ bundleIdentifier: String, forType identifier: String) throws(RegistryError) -> RegistryChange {
        let uti = types.canonical(identifier)
        guard Identifiers.isValidTypeIdentifier(uti) else {
            throw RegistryError(.invalidType, "'\(identifier)' is not a uniform type identifier, e.g. public.plain-text")
        }
        guard applications[bundleIdentifier] != nil else {
            throw RegistryError(.unknownApplication, "no app with bundle identifier \(bundleIdentifier) is registered; `courier dump` lists them")
        }
        let resolution = handlers(forType: uti)
        guard resolution.candidates.contains(where: { $0.bundleIdentifier == bundleIdentifier && $0.status != .rankNone }) else {
            throw RegistryError(.notACandidate, "\(bundleIdentifier) declares no document type that accepts \(uti); candidates: \(resolution.bundleIdentifiers.joined(separator: ", "))")
        }
        return choose(bundleIdentifier, for: uti, in: \.typeDefaults, instead: \.desktopTypeDefaults)
    }

    /// Makes the desktop application `desktopID` the user's default for `scheme`: no Courier app
    /// is chosen for it any more, and Courier hands it to the desktop. The caller checks that the
    /// desktop entry exists and declares the scheme (`DesktopApplications`).
    @discardableResult
    public mutating func setDesktopDefault(_ desktopID: String, forScheme scheme: String) throws(RegistryError) -> RegistryChange {
        let scheme = scheme.lowercased()
        guard Identifiers.isValidScheme(scheme) else {
            throw RegistryError(.invalidScheme, "'\(scheme)' is not a URL scheme; give the scheme alone, e.g. todolist")
        }
        return choose(desktopID, for: scheme, in: \.desktopSchemeDefaults, instead: \.schemeDefaults)
    }

    /// Makes the desktop application `desktopID` the user's default for files of type `identifier`
    /// (and types conforming to it), as ``setDesktopDefault(_:forScheme:)`` does for a scheme.
    @discardableResult
    public mutating func setDesktopDefault(_ desktopID: String, forType identifier: String) throws(RegistryError) -> RegistryChange {
        let uti = types.canonical(identifier)
        guard Identifiers.isValidTypeIdentifier(uti) || types.isKnown(uti) else {
            throw RegistryError(.invalidType, "'\(identifier)' is not a uniform type identifier, e.g. public.plain-text")
        }
        return choose(desktopID, for: uti, in: \.desktopTypeDefaults, instead: \.typeDefaults)
    }

    /// Records `id` as the default for `key` in `chosen`, forgetting the default for it in `other`:
    /// a key has a Courier app or a desktop application as its default, never both.
    private mutating func choose(
        _ id: String, for key: String,
        in chosen: WritableKeyPath<RegistryPreferences, [String: String]>,
        instead other: WritableKeyPath<RegistryPreferences, [String: String]>
    ) -> RegistryChange {
        var next = preferences
        next[keyPath: other][key] = nil
        next[keyPath: chosen][key] = id
        return replacePreferences(next)
    }

    /// Forgets the user's default for `scheme` (a Courier app or a desktop application).
    @discardableResult
    public mutating func clearDefault(forScheme scheme: String) -> RegistryChange {
        var next = preferences
        next.schemeDefaults[scheme.lowercased()] = nil
        next.desktopSchemeDefaults[scheme.lowercased()] = nil
        return replacePreferences(next)
    }

    /// Forgets the user's default for files of type `identifier` (a Courier app or a desktop application).
    @discardableResult
    public mutating func clearDefault(forType identifier: String) -> RegistryChange {
        var next = preferences
        next.typeDefaults[types.canonical(identifier)] = nil
        next.desktopTypeDefaults[types.canonical(identifier)] = nil
        return replacePreferences(next)
    }

    /// Takes the user's defaults as they are now (the broker re-reading `defaults.json` after
    /// `courier default` changed it). The change lists the schemes and types whose default changed
    /// and, as `updated`, the apps that gained or lost a choice through it — so that listeners
    /// (`RegistryChanged`, the desktop entries and `mimeapps.list`) hear about it.
    @discardableResult
    public mutating func replacePreferences(_ next: RegistryPreferences) -> RegistryChange {
        var change = RegistryChange()
        guard next != preferences else { return change }
        var schemes = preferences.changedSchemes(next)
        var types = preferences.changedTypes(next)
        var affected = Set<String>()
        // An app disabled or enabled changes every scheme and type it claims.
        let toggled = preferences.disabled.symmetricDifference(next.disabled).compactMap { applications[$0] }
        schemes.formUnion(toggled.flatMap { $0.schemes.map { $0.lowercased() } })
        types.formUnion(toggled.flatMap { $0.documentTypes.flatMap(\.contentTypes) }.map { self.types.canonical($0) })
        affected.formUnion(toggled.map(\.bundleIdentifier.rawValue))
        let before = (schemes.map { handlers(forScheme: $0).chosen?.bundleIdentifier }, types.map { handlers(forType: $0).chosen?.bundleIdentifier })
        preferences = next
        let after = (schemes.map { handlers(forScheme: $0).chosen?.bundleIdentifier }, types.map { handlers(forType: $0).chosen?.bundleIdentifier })
        for id in before.0 + before.1 + after.0 + after.1 { if let id, applications[id] != nil { affected.insert(id) } }
        change.schemes = schemes.sorted()
        change.types = types.sorted()
        change.updated = affected.sorted()
        return change
    }

    /// Marks the claim order as saved (see ``RegistryStateStore``).
    public mutating func claimOrderSaved(_ saved: ClaimOrder) {
        claimOrder = saved
        unregisteredSinceSave = []
    }

    // MARK: - Index maintenance

    /// The registered app, other than `bundleIdentifier` itself, whose bus name is the one
    /// `bundleIdentifier` maps to; nil when there is none.
    func busNameCollision(_ bundleIdentifier: String) -> String? {
        busNameIndex[Self.busName(of: bundleIdentifier)].flatMap { $0 == bundleIdentifier ? nil : $0 }
    }

    func busNameCollisionMessage(_ bundleIdentifier: String, _ other: String, file: String) -> String {
        let path = applications[other]?.path ?? ""
        return "\(bundleIdentifier) becomes the D-Bus name \(Self.busName(of: bundleIdentifier)) ('-' becomes '_', an element starting with a digit gets a leading '_'), which \(other)\(path.isEmpty ? "" : " from \(path)") already has; \(file.isEmpty ? "this app" : file) is not registered — give one of the two apps another CFBundleIdentifier"
    }

    /// The bus name of `bundleIdentifier` (itself when it is not a valid identifier: manifests
    /// built in memory are not validated).
    private static func busName(of bundleIdentifier: String) -> String {
        BundleIdentifier(validating: bundleIdentifier)?.busName ?? bundleIdentifier
    }

    /// Inserts without touching the type graph's app declarations (the caller rebuilds it once).
    mutating func insertForBuild(_ manifest: Manifest) {
        insert(manifest, addTypes: false)
    }

    mutating func insert(_ manifest: Manifest, addTypes: Bool = true) {
        let id = manifest.bundleIdentifier.rawValue
        applications[id] = manifest
        pathIndex[manifest.path] = id
        busNameIndex[Self.busName(of: id)] = id
        for scheme in manifest.schemes {
            schemeIndex[scheme, default: []].append(id)
            claimOrder.record(id, for: .scheme(scheme))
        }
        var seen = Set<String>()
        for doc in manifest.documentTypes {
            for t in doc.contentTypes {
                let uti = types.canonical(t)
                guard seen.insert(uti).inserted else { continue }
                typeIndex[uti, default: []].append(id)
                claimOrder.record(id, for: .type(uti))
            }
        }
        guard addTypes else { return }
        for declaration in manifest.exportedTypes { types.add(declaration, declaredBy: id, exported: true) }
        for declaration in manifest.importedTypes { types.add(declaration, declaredBy: id, exported: false) }
    }

    private mutating func remove(_ id: String) {
        guard let manifest = applications.removeValue(forKey: id) else { return }
        if pathIndex[manifest.path] == id { pathIndex[manifest.path] = nil }
        if busNameIndex[Self.busName(of: id)] == id { busNameIndex[Self.busName(of: id)] = nil }
        for scheme in manifest.schemes {
            schemeIndex[scheme]?.removeAll { $0 == id }
            if schemeIndex[scheme]?.isEmpty ?? false { schemeIndex[scheme] = nil }
        }
        for doc in manifest.documentTypes {
            for t in doc.contentTypes {
                let uti = types.canonical(t)
                typeIndex[uti]?.removeAll { $0 == id }
                if typeIndex[uti]?.isEmpty ?? false { typeIndex[uti] = nil }
            }
        }
    }

    /// Rebuilds the type graph from the system types and every app's declarations, exported first
    /// (in first-registered order of bundle id) so that an export beats an import.
    mutating func rebuildTypes() {
        var graph = baseTypes
        let apps = sortedApplications
        for app in apps { for d in app.exportedTypes { graph.add(d, declaredBy: app.bundleIdentifier.rawValue, exported: true) } }
        for app in apps { for d in app.importedTypes { graph.add(d, declaredBy: app.bundleIdentifier.rawValue, exported: false) } }
        types = graph
    }

    mutating func setFileDiagnostics(_ diagnostics: [ManifestDiagnostic], for path: String) {
        fileDiagnostics[path] = diagnostics.isEmpty ? nil : diagnostics
    }

    func diagnostics(forFile path: String) -> [ManifestDiagnostic] { fileDiagnostics[path] ?? [] }

    // MARK: - Diagnostics

    /// Every problem: the files' and folders' diagnostics, then the registry's own findings —
    /// conflicts (a scheme, or a document type, claimed by several eligible apps), refused claims
    /// on system schemes, and type declarations that lost to another app's.
    public var diagnostics: [ManifestDiagnostic] {
        var out = folderDiagnostics
        for path in fileDiagnostics.keys.sorted() { out += fileDiagnostics[path]! }
        for scheme in claimedSchemes {
            let resolution = handlers(forScheme: scheme)
            for c in resolution.candidates where c.status == .reserved {
                let path = applications[c.bundleIdentifier]?.path ?? ""
                out.append(ManifestDiagnostic(file: path, keyPath: "CFBundleURLTypes", message: "the scheme '\(scheme)' belongs to the system; the claim of \(c.bundleIdentifier) is refused. To let it handle '\(scheme)', run `courier default \(scheme) \(c.bundleIdentifier)`", severity: .warning, code: .reservedScheme))
            }
            let eligible = resolution.candidates.filter(\.isEligible)
            if eligible.count > 1, let chosen = resolution.chosen {
                for c in eligible.dropFirst() {
                    let path = applications[c.bundleIdentifier]?.path ?? ""
                    out.append(ManifestDiagnostic(file: path, keyPath: "CFBundleURLTypes", message: "the scheme '\(scheme)' is also claimed by \(chosen.bundleIdentifier), which is chosen (\(chosen.explanation.replacingPrefix("chosen: "))); \(c.bundleIdentifier) \(c.explanation). Choose with `courier default \(scheme) BUNDLE_ID`", severity: .warning, code: .schemeConflict))
                }
            }
        }
        for uti in claimedTypes where (typeIndex[uti]?.count ?? 0) > 1 {
            // Apps declaring this very type (not a supertype of it) compete for its files.
            let resolution = handlers(forType: uti)
            let direct = resolution.candidates.filter { $0.isEligible && $0.distance == 0 }
            guard direct.count > 1, let chosen = resolution.chosen else { continue }
            for c in direct where c.bundleIdentifier != chosen.bundleIdentifier {
                let path = applications[c.bundleIdentifier]?.path ?? ""
                out.append(ManifestDiagnostic(file: path, keyPath: "CFBundleDocumentTypes", message: "files of type \(uti) are also claimed by \(chosen.bundleIdentifier), which is chosen (\(chosen.explanation.replacingPrefix("chosen: "))); \(c.bundleIdentifier) \(c.explanation). Choose with `courier default --type \(uti) BUNDLE_ID`", severity: .warning, code: .documentTypeConflict))
            }
        }
        for app in sortedApplications {
            for (i, d) in app.exportedTypes.enumerated() {
                if let owner = types.declaringApplication(of: d.identifier), owner != app.bundleIdentifier.rawValue {
                    out.append(ManifestDiagnostic(file: app.path, keyPath: "UTExportedTypeDeclarations[\(i)]", message: "\(d.identifier) is already exported by \(owner); this declaration is ignored — use an identifier under your own bundle identifier", severity: .warning, code: .typeConflict))
                } else if types.declaringApplication(of: d.identifier) == nil {
                    out.append(ManifestDiagnostic(file: app.path, keyPath: "UTExportedTypeDeclarations[\(i)]", message: "\(d.identifier) is a system type; apps cannot redefine it — this declaration is ignored (list it in LSItemContentTypes instead)", severity: .warning, code: .typeConflict))
                }
            }
        }
        return out
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}

extension Registry {
    /// File typing with this registry's type graph (system types plus the apps' declarations).
    public var fileTypes: FileTypeResolver { FileTypeResolver(types: types) }

    /// What a file is and whether `bundleIdentifier` accepts it: the Inbox's check before a drop.
    /// `documentType` is nil when none of the app's document types accepts the file's type.
    public func acceptance(
        ofFileNamed suggestedName: String, fileDescriptor fd: Int32, by bundleIdentifier: String
    ) -> (identification: FileTypeIdentification, documentType: DocumentTypeDeclaration?) {
        let identification = fileTypes.identify(suggestedName: suggestedName, fileDescriptor: fd)
        return (identification, documentType(of: bundleIdentifier, accepting: identification.typeIdentifier))
    }
}
