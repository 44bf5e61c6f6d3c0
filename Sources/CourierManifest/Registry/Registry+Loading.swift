import CourierTypes
extension Registry {
    /// Builds the registry from loaded files (in precedence order), applying the rules that span
    /// files:
    /// - the same bundle identifier in two files: the first file (by folder precedence, then
    ///   name) wins, the other gets an error diagnostic; the same for two identifiers that map to
    ///   one D-Bus name (`com.acme.a-b`, `com.acme.a_b`: `BundleIdentifier.busName`);
    /// - a file that no longer loads but held a registered app in `previous` keeps that app's last
    ///   good version (with a diagnostic saying so) — a broken edit never unregisters an app;
    /// - the first-claim order of `previous` (or the persisted one it was built with) is kept;
    ///   new claims are appended in load order.
    ///
    /// Returns the new registry and what changed compared with `previous`.
    public static func build(
        files: [ManifestLoader.FileResult], folderDiagnostics: [ManifestDiagnostic] = [],
        previous: Registry
    ) -> (registry: Registry, change: RegistryChange) {
        var registry = Registry(
            types: previous.baseTypesForRebuild, preferences: previous.preferences,
            claimOrder: previous.claimOrder, reservedSchemes: previous.reservedSchemes)
        registry.unregisteredSinceSave = previous.unregisteredSinceSave
        registry.folderDiagnostics = folderDiagnostics
        var hasTypeDeclarations = false
        var change = RegistryChange()
        change.diagnostics = folderDiagnostics
        for file in files {
            var diagnostics = file.diagnostics
            var manifest = file.manifest
            if manifest == nil, let last = previous.application(atPath: file.path) {
                diagnostics.append(ManifestDiagnostic(file: file.path, keyPath: "", message: "kept the last good version of \(last.bundleIdentifier) because this file no longer loads; fix the errors above and save again", severity: .warning, code: .keptLastGoodVersion))
                manifest = last
            }
            if let m = manifest, let first = registry.applications[m.bundleIdentifier.rawValue] {
                diagnostics.append(ManifestDiagnostic(file: file.path, keyPath: "CFBundleIdentifier", message: "\(m.bundleIdentifier) is already declared by \(first.path); this file is ignored — remove one of the two files or give this one its own bundle identifier", severity: .error, code: .duplicateBundleIdentifier))
                manifest = nil
            }
            if let m = manifest, let other = registry.busNameCollision(m.bundleIdentifier.rawValue) {
                diagnostics.append(ManifestDiagnostic(file: file.path, keyPath: "CFBundleIdentifier", message: registry.busNameCollisionMessage(m.bundleIdentifier.rawValue, other, file: file.path), severity: .error, code: .busNameCollision))
                manifest = nil
            }
            if let m = manifest {
                registry.insertForBuild(m)
                hasTypeDeclarations = hasTypeDeclarations || !m.exportedTypes.isEmpty || !m.importedTypes.isEmpty
            }
            registry.setFileDiagnostics(diagnostics, for: file.path)
            if diagnostics != previous.diagnostics(forFile: file.path) { change.diagnostics += diagnostics }
        }
        if hasTypeDeclarations { registry.rebuildTypes() }
        // What changed.
        var affectedSchemes = Set<String>()
        var affectedTypes = Set<String>()
        for (id, m) in registry.applications {
            if let old = previous.applications[id] {
                if old != m {
                    change.updated.append(id)
                    affectedSchemes.formUnion(old.schemes + m.schemes)
                    affectedTypes.formUnion((old.documentTypes + m.documentTypes).flatMap(\.contentTypes))
                }
            } else {
                change.added.append(id)
                affectedSchemes.formUnion(m.schemes)
                affectedTypes.formUnion(m.documentTypes.flatMap(\.contentTypes))
            }
        }
        for (id, old) in previous.applications where registry.applications[id] == nil {
            change.removed.append(id)
            affectedSchemes.formUnion(old.schemes)
            affectedTypes.formUnion(old.documentTypes.flatMap(\.contentTypes))
        }
        change.added.sort()
        change.updated.sort()
        change.removed.sort()
        // A scheme changed when its candidates (or their standing) changed; one that only one side
        // has changed by definition, without resolving it.
        change.schemes = affectedSchemes.filter { scheme in
            guard previous.isClaimed(scheme: scheme), registry.isClaimed(scheme: scheme) else { return true }
            let before = previous.handlers(forScheme: scheme).candidates
            let after = registry.handlers(forScheme: scheme).candidates
            return !before.elementsEqual(after) { $0.bundleIdentifier == $1.bundleIdentifier && $0.status == $1.status }
        }.sorted()
        change.types = affectedTypes.sorted()
        return (registry, change)
    }

    /// The system types this registry was created with (without app declarations).
    var baseTypesForRebuild: TypeGraph { baseTypesValue }
}
