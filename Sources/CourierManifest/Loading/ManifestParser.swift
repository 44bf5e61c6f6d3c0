public import CourierTypes
import CourierNames
import CourierURL

/// Turns a decoded property list into a ``Manifest`` plus diagnostics. Pure: no file system.
///
/// Keys Courier does not read are ignored, so a real app's Info.plist loads as it is. Only the
/// values Courier reads are checked; a bad declaration is dropped with a warning and the rest of
/// the manifest is kept; only a missing or unusable bundle identifier refuses the whole manifest.
public struct ManifestParser: Sendable {
    /// The key of the Linux launch command (an argv array). See docs/manifest.md.
    public static let launchArgumentsKey = "CourierLaunchArguments"
    /// The key of the app's URL format as data (see CourierURL).
    public static let urlFormatKey = "CourierURLFormat"
    /// The key that marks a foreign, D-Bus-activatable `org.freedesktop.Application` (a Boolean).
    public static let dbusActivatableKey = "CourierDBusActivatable"
    /// false: the idle-timeout and memory-pressure policies never terminate the app (docs/lifecycle.md).
    public static let terminatesWhenIdleKey = "CourierTerminatesWhenIdle"
    public static let keepAliveKey = "CourierKeepAlive"
    public static let runAtLoadKey = "CourierRunAtLoad"
    /// Inside a `CFBundleURLTypes` entry: who may open URLs of its schemes (``CallerRule``).
    public static let allowedCallersKey = "CourierAllowedCallers"
    /// Top level: who may drop files on the app (``CallerRule``).
    public static let allowedDropCallersKey = "CourierAllowedDropCallers"
    /// The base name of the app's launch images (``LaunchImages``).
    public static let launchImageFileKey = "UILaunchImageFile"

    /// Checks `CourierURLFormat`; returns what is wrong when the value is not a valid format (nil:
    /// the value is kept unchecked).
    public var urlFormatValidator: (@Sendable (PropertyListValue) -> URLFormatError?)?
    /// Where the legacy `CFBundleTypeExtensions` and `CFBundleTypeMIMETypes` are looked up
    /// (``LegacyDocumentTypes``); only read for manifests that use them.
    public var mimeDatabase: MIMEDatabase

    public init(urlFormatValidator: (@Sendable (PropertyListValue) -> URLFormatError?)? = ManifestURLFormat.validate,
                mimeDatabase: MIMEDatabase = .system) {
        self.urlFormatValidator = urlFormatValidator
        self.mimeDatabase = mimeDatabase
    }

    /// The result of parsing one property list.
    public struct Result: Sendable {
        /// nil when the manifest was refused (there is then at least one `error` diagnostic).
        public var manifest: Manifest?
        public var diagnostics: [ManifestDiagnostic]
    }

    /// Parses the top-level value of a property list read from `path` (absolute).
    public func parse(_ root: PropertyListValue, path: String) -> Result {
        var context = Context(path: path)
        guard case .dictionary(let plist) = root else {
            context.error(.notPropertyList, "", "the property list's top level is a \(root.typeName), not a dictionary; an Info.plist is a <dict> of keys such as CFBundleIdentifier")
            return Result(manifest: nil, diagnostics: context.diagnostics)
        }
        guard let bundleID = parseBundleIdentifier(plist, &context) else {
            return Result(manifest: nil, diagnostics: context.diagnostics)
        }
        var manifest = Manifest(bundleIdentifier: bundleID, path: path)
        manifest.name = parseName(plist, &context) ?? bundleID.rawValue
        manifest.urlTypes = parseURLTypes(plist["CFBundleURLTypes"], &context)
        // The app's own types first: legacy document types may name them by extension or MIME type.
        var typeContext = Context(path: path)
        manifest.exportedTypes = parseTypeDeclarations(plist["UTExportedTypeDeclarations"], key: "UTExportedTypeDeclarations", &typeContext)
        manifest.importedTypes = parseTypeDeclarations(plist["UTImportedTypeDeclarations"], key: "UTImportedTypeDeclarations", &typeContext)
        manifest.documentTypes = parseDocumentTypes(plist["CFBundleDocumentTypes"], &context) {
            LegacyDocumentTypes(mimeDatabase: mimeDatabase, exported: manifest.exportedTypes, imported: manifest.importedTypes, bundleIdentifier: bundleID.rawValue)
        }
        context.diagnostics += typeContext.diagnostics
        manifest.launchCommand = parseLaunchCommand(plist[Self.launchArgumentsKey], &context)
        manifest.queriesSchemes = parseQueriesSchemes(plist["LSApplicationQueriesSchemes"], &context)
        manifest.dbusActivatable = parseDBusActivatable(plist[Self.dbusActivatableKey], hasLaunchCommand: manifest.launchCommand != nil, &context)
        if let value = plist[Self.terminatesWhenIdleKey] {
            if case .boolean(let terminates) = value {
                manifest.terminatesWhenIdle = terminates
            } else {
                context.warning(.wrongType, Self.terminatesWhenIdleKey, "\(Self.terminatesWhenIdleKey) is a \(value.typeName), expected a Boolean (<false/> to keep the app running when idle); it is ignored")
            }
        }
        for (key, path) in [(Self.keepAliveKey, \Manifest.keepAlive), (Self.runAtLoadKey, \Manifest.runAtLoad)] {
            guard let value = plist[key] else { continue }
            if case .boolean(let on) = value {
                manifest[keyPath: path] = on
                if on, manifest.launchCommand == nil {
                    context.warning(.invalidValue, key, "\(key) needs CourierLaunchArguments: the broker cannot start an app it has no command for; it is ignored")
                    manifest[keyPath: path] = false
                }
            } else {
                context.warning(.wrongType, key, "\(key) is a \(value.typeName), expected a Boolean (<true/>); it is ignored")
            }
        }
        manifest.dropCallers = parseDropCallers(plist, &context)
        manifest.shareActivities = parseShareActivities(plist[Self.shareActivitiesKey], &context)
        manifest.launchImages = parseLaunchImageFile(plist[Self.launchImageFileKey], &context)
        if let format = plist[Self.urlFormatKey] {
            if let problem = urlFormatValidator?(format) {
                let key = problem.keyPath.isEmpty ? Self.urlFormatKey : Self.urlFormatKey + "." + problem.keyPath
                context.warning(.invalidURLFormat, key, "the URL format is invalid: \(problem.explanation) (see docs/url-format.md) — the app is registered without a URL format, so URLs are not checked against it before launch")
            } else {
                manifest.urlFormat = format
            }
        }
        // A caller rule that cannot be read refuses the manifest: guessing would either open the
        // app to every caller or cut its callers off (CallerRule.parse).
        if context.diagnostics.contains(where: { $0.code == .invalidCallerRule && $0.severity == .error }) {
            return Result(manifest: nil, diagnostics: context.diagnostics)
        }
        return Result(manifest: manifest, diagnostics: context.diagnostics)
    }

    // MARK: - Keys

    private func parseBundleIdentifier(_ plist: [String: PropertyListValue], _ context: inout Context) -> BundleIdentifier? {
        let key = "CFBundleIdentifier"
        guard let value = plist[key] else {
            context.error(.missingBundleIdentifier, key, "no CFBundleIdentifier; add one in reverse-DNS form (com.example.app) — the app is not registered")
            return nil
        }
        guard case .string(let id) = value else {
            context.error(.wrongType, key, "CFBundleIdentifier is a \(value.typeName), expected a string such as com.example.app — the app is not registered")
            return nil
        }
        if let variable = Identifiers.unresolvedBuildVariable(in: id) {
            context.error(.unresolvedBuildVariable, key, "'\(id)' contains the unresolved build setting \(variable); Xcode substitutes it at build time — write the final bundle identifier (com.example.app) — the app is not registered")
            return nil
        }
        do {
            return try BundleIdentifier(id)
        } catch {
            context.error(.invalidBundleIdentifier, key, "\(error) — the app is not registered")
            return nil
        }
    }

    private func parseName(_ plist: [String: PropertyListValue], _ context: inout Context) -> String? {
        for key in ["CFBundleDisplayName", "CFBundleName"] {
            guard let value = plist[key] else { continue }
            guard case .string(let name) = value else {
                context.warning(.wrongType, key, "\(key) is a \(value.typeName), expected a string; it is ignored")
                continue
            }
            if let variable = Identifiers.unresolvedBuildVariable(in: name) {
                context.warning(.unresolvedBuildVariable, key, "'\(name)' contains the unresolved build setting \(variable); write the final name — it is ignored")
                continue
            }
            guard context.isClean(name, key: key) else { continue }
            if !name.isEmpty { return name }
        }
        return nil
    }

    private func parseURLTypes(_ value: PropertyListValue?, _ context: inout Context) -> [URLTypeDeclaration] {
        let key = "CFBundleURLTypes"
        guard let entries = context.array(value, key: key) else { return [] }
        var seen: [String: String] = [:]  // scheme -> key path of its first declaration
        var result: [URLTypeDeclaration] = []
        for (i, entry) in entries.enumerated() {
            let path = "\(key)[\(i)]"
            guard let dict = context.dictionary(entry, key: path) else { continue }
            var type = URLTypeDeclaration(schemes: [])
            type.name = context.string(dict["CFBundleURLName"], key: path + ".CFBundleURLName")
            type.role = context.enumValue(dict["CFBundleTypeRole"], key: path + ".CFBundleTypeRole", default: .editor)
            type.rank = context.enumValue(dict["LSHandlerRank"], key: path + ".LSHandlerRank", default: .default)
            type.allowedCallers = parseCallerRule(dict[Self.allowedCallersKey], key: "\(path).\(Self.allowedCallersKey)", &context)
            if dict[Self.allowedDropCallersKey] != nil {
                context.error(.invalidCallerRule, "\(path).\(Self.allowedDropCallersKey)", "\(Self.allowedDropCallersKey) is a top-level key (who may drop files on the app); inside a URL type write \(Self.allowedCallersKey) (who may open its schemes) — the app is not registered")
            }
            let schemesKey = path + ".CFBundleURLSchemes"
            guard let schemesValue = dict["CFBundleURLSchemes"] else {
                context.warning(.invalidValue, schemesKey, "this URL type has no CFBundleURLSchemes; add an array of scheme names, or remove the entry")
                continue
            }
            for (j, s) in (context.stringArray(schemesValue, key: schemesKey) ?? []) {
                let schemeKey = "\(schemesKey)[\(j)]"
                guard let scheme = checkedScheme(s, key: schemeKey, &context) else { continue }
                if let first = seen[scheme] {
                    context.warning(.duplicateScheme, schemeKey, "the scheme '\(scheme)' is already declared at \(first) (schemes compare case-insensitively); remove one of them — this one is ignored")
                    continue
                }
                seen[scheme] = schemeKey
                type.schemes.append(scheme)
            }
            if !type.schemes.isEmpty { result.append(type) }
        }
        return result
    }

    private func checkedScheme(_ s: String, key: @autoclosure () -> String, _ context: inout Context) -> String? {
        if let variable = Identifiers.unresolvedBuildVariable(in: s) {
            context.warning(.unresolvedBuildVariable, key(), "'\(s)' contains the unresolved build setting \(variable); write the final scheme name — it is ignored")
            return nil
        }
        var candidate = s
        if candidate.hasSuffix("://") || candidate.hasSuffix(":") {
            context.warning(.invalidScheme, key(), "'\(s)' is not a scheme name: write it without ':' or '://' (e.g. 'todolist') — it is ignored")
            return nil
        }
        candidate = candidate.lowercased()
        guard Identifiers.isValidScheme(candidate) else {
            context.warning(.invalidScheme, key(), "'\(s)' is not a valid URL scheme; a scheme starts with a letter followed by letters, digits, '+', '-' or '.' (RFC 3986) — it is ignored")
            return nil
        }
        return candidate
    }

    /// `CFBundleDocumentTypes`. An entry without usable `LSItemContentTypes` falls back to the
    /// legacy `CFBundleTypeExtensions` and `CFBundleTypeMIMETypes` (as Launch Services does), with a
    /// warning that says which types were inferred; `legacy` is built only when one needs it.
    private func parseDocumentTypes(_ value: PropertyListValue?, _ context: inout Context,
                                    legacy makeLegacy: () -> LegacyDocumentTypes) -> [DocumentTypeDeclaration] {
        let key = "CFBundleDocumentTypes"
        guard let entries = context.array(value, key: key) else { return [] }
        var legacy: LegacyDocumentTypes?
        var result: [DocumentTypeDeclaration] = []
        for (i, entry) in entries.enumerated() {
            let path = "\(key)[\(i)]"
            guard let dict = context.dictionary(entry, key: path) else { continue }
            let typesKey = path + ".LSItemContentTypes"
            var contentTypes: [String] = []
            if let typesValue = dict["LSItemContentTypes"] {
                for (j, t) in (context.stringArray(typesValue, key: typesKey) ?? []) {
                    if let uti = checkedTypeIdentifier(t, key: "\(typesKey)[\(j)]", &context), !contentTypes.contains(uti) {
                        contentTypes.append(uti)
                    }
                }
            }
            let hasLegacyKeys = [LegacyDocumentTypes.extensionsKey, LegacyDocumentTypes.mimeTypesKey, LegacyDocumentTypes.osTypesKey].contains { dict[$0] != nil }
            if contentTypes.isEmpty, hasLegacyKeys {
                if legacy == nil { legacy = makeLegacy() }
                contentTypes = inferTypes(dict, path: path, hadContentTypes: dict["LSItemContentTypes"] != nil, legacy!, &context)
            }
            guard !contentTypes.isEmpty else {
                let also = hasLegacyKeys ? ", and its \(LegacyDocumentTypes.extensionsKey) / \(LegacyDocumentTypes.mimeTypesKey) / \(LegacyDocumentTypes.osTypesKey) name no usable extension, MIME type or file type" : ""
                context.warning(.invalidValue, hasLegacyKeys ? path : typesKey, "this document type declares no usable LSItemContentTypes\(also); add uniform type identifiers such as public.plain-text — the entry is ignored")
                continue
            }
            for key in [Self.allowedCallersKey, Self.allowedDropCallersKey] where dict[key] != nil {
                context.error(.invalidCallerRule, "\(path).\(key)", "who may drop files is one rule for the whole app: move it to the top level as \(Self.allowedDropCallersKey) — the app is not registered")
            }
            let name = context.string(dict["CFBundleTypeName"], key: path + ".CFBundleTypeName") ?? contentTypes[0]
            let role: HandlerRole = context.enumValue(dict["CFBundleTypeRole"], key: path + ".CFBundleTypeRole", default: .viewer)
            let rank: HandlerRank = context.enumValue(dict["LSHandlerRank"], key: path + ".LSHandlerRank", default: .default)
            result.append(DocumentTypeDeclaration(name: name, contentTypes: contentTypes, role: role, rank: rank))
        }
        return result
    }

    /// The types of an entry's `CFBundleTypeExtensions` and `CFBundleTypeMIMETypes`, reported in
    /// one warning (what was inferred from what, and what to write instead); values that are not
    /// an extension or a MIME type are reported and skipped.
    private func inferTypes(_ dict: [String: PropertyListValue], path: String, hadContentTypes: Bool,
                            _ legacy: LegacyDocumentTypes, _ context: inout Context) -> [String] {
        var inferred: [LegacyDocumentTypes.Inference] = []
        let keys = [(LegacyDocumentTypes.extensionsKey, legacy.type(forExtension:)), (LegacyDocumentTypes.mimeTypesKey, legacy.type(forMIMEType:)),
                    (LegacyDocumentTypes.osTypesKey, legacy.type(forOSType:))]
        for (key, lookup) in keys {
            guard let value = dict[key] else { continue }
            let valueKey = "\(path).\(key)"
            for (j, raw) in context.stringOrStringArray(value, key: valueKey) {
                if let variable = Identifiers.unresolvedBuildVariable(in: raw) {
                    context.warning(.unresolvedBuildVariable, "\(valueKey)[\(j)]", "'\(raw)' contains the unresolved build setting \(variable); write the final value — it is ignored")
                    continue
                }
                guard let type = lookup(raw) else {
                    if key == LegacyDocumentTypes.osTypesKey { continue }
                    let what = key == LegacyDocumentTypes.extensionsKey ? "a filename extension (e.g. txt)" : "a MIME type (e.g. text/plain)"
                    context.warning(.invalidValue, "\(valueKey)[\(j)]", "'\(raw)' is not \(what) — it is ignored")
                    continue
                }
                if !inferred.contains(where: { $0.typeIdentifier == type }) {
                    let value = key == LegacyDocumentTypes.osTypesKey ? "'\(raw)'" : Identifiers.trimmingWhitespace(raw)
                    inferred.append(.init(typeIdentifier: type, source: "\(key) \(value)"))
                }
            }
        }
        guard !inferred.isEmpty else { return [] }
        let list = inferred.map { "\($0.typeIdentifier) (from \($0.source))" }.joined(separator: ", ")
        let why = hadContentTypes ? "LSItemContentTypes names no usable type" : "no LSItemContentTypes"
        // Advice: the real identifiers to write; a type only shared-mime-info or nobody knows
        // (dyn.*) has none, so the app should declare one for it.
        let named = inferred.map(\.typeIdentifier).filter { !$0.hasPrefix("dyn.") }
        let undeclared = inferred.filter { $0.typeIdentifier.hasPrefix("dyn.") }.map(\.source)
        var advice: [String] = []
        if !named.isEmpty { advice.append("add LSItemContentTypes with \(named.joined(separator: ", "))") }
        if !undeclared.isEmpty { advice.append("declare a type in UTImportedTypeDeclarations for \(undeclared.joined(separator: ", ")) and list it there") }
        context.warning(.inferredDocumentType, path, "\(why): Courier inferred \(list); \(advice.joined(separator: ", and ")) to say so explicitly")
        return inferred.map(\.typeIdentifier)
    }

    /// A valid type identifier, or nil after a warning. White space around it (a stray blank in a
    /// hand-edited plist) is trimmed with a warning rather than refused.
    func checkedTypeIdentifier(_ s: String, key: @autoclosure () -> String, _ context: inout Context) -> String? {
        if let variable = Identifiers.unresolvedBuildVariable(in: s) {
            context.warning(.unresolvedBuildVariable, key(), "'\(s)' contains the unresolved build setting \(variable); write the final type identifier — it is ignored")
            return nil
        }
        let trimmed = Identifiers.trimmingWhitespace(s)
        guard Identifiers.isValidTypeIdentifier(trimmed) else {
            context.warning(.invalidValue, key(), "'\(s)' is not a uniform type identifier (dot-separated ASCII letters, digits, '-' or '_', e.g. public.plain-text) — it is ignored")
            return nil
        }
        if trimmed != s {
            context.warning(.trimmedWhitespace, key(), "'\(s)' has white space around it; it is read as '\(trimmed)' — remove the blanks")
        }
        return trimmed
    }

    private func parseTypeDeclarations(_ value: PropertyListValue?, key: String, _ context: inout Context) -> [TypeDeclaration] {
        guard let entries = context.array(value, key: key) else { return [] }
        var result: [TypeDeclaration] = []
        var seen = Set<String>()
        for (i, entry) in entries.enumerated() {
            let path = "\(key)[\(i)]"
            guard let dict = context.dictionary(entry, key: path) else { continue }
            let idKey = path + ".UTTypeIdentifier"
            guard let idValue = dict["UTTypeIdentifier"] else {
                context.warning(.invalidValue, idKey, "this type declaration has no UTTypeIdentifier; add one (e.g. com.example.document) — the entry is ignored")
                continue
            }
            guard let rawID = context.string(idValue, key: idKey), let id = checkedTypeIdentifier(rawID, key: idKey, &context) else { continue }
            guard seen.insert(id).inserted else {
                context.warning(.invalidValue, idKey, "the type \(id) is declared twice in \(key); remove one — this one is ignored")
                continue
            }
            var declaration = TypeDeclaration(identifier: id)
            declaration.description = context.string(dict["UTTypeDescription"], key: path + ".UTTypeDescription")
            if let conforms = dict["UTTypeConformsTo"] {
                let conformsKey = path + ".UTTypeConformsTo"
                for (j, parent) in context.stringOrStringArray(conforms, key: conformsKey) {
                    if let uti = checkedTypeIdentifier(parent, key: "\(conformsKey)[\(j)]", &context) { declaration.conformsTo.append(uti) }
                }
            }
            if let tagsValue = dict["UTTypeTagSpecification"] {
                let tagsKey = path + ".UTTypeTagSpecification"
                if let tags = context.dictionary(tagsValue, key: tagsKey) {
                    if let ext = tags["public.filename-extension"] {
                        declaration.filenameExtensions = context.stringOrStringArray(ext, key: tagsKey + ".public.filename-extension").map { _, e in
                            (e.hasPrefix(".") ? String(e.dropFirst()) : e).lowercased()
                        }.filter { !$0.isEmpty }
                    }
                    if let mime = tags["public.mime-type"] {
                        declaration.mimeTypes = context.stringOrStringArray(mime, key: tagsKey + ".public.mime-type").map { $0.1.lowercased() }
                    }
                }
            }
            result.append(declaration)
        }
        return result
    }

    private func parseLaunchCommand(_ value: PropertyListValue?, _ context: inout Context) -> LaunchCommand? {
        let key = Self.launchArgumentsKey
        guard let value else { return nil }
        guard case .array(let items) = value else {
            context.warning(.wrongType, key, "\(key) is a \(value.typeName), expected an array of strings (the argv, e.g. [\"todolist\"]); Courier never runs a shell — the app cannot be launched by Courier")
            return nil
        }
        guard !items.isEmpty else {
            context.warning(.invalidValue, key, "\(key) is empty; put the program as its first element — the app cannot be launched by Courier")
            return nil
        }
        var argv: [String] = []
        for (i, item) in items.enumerated() {
            let itemKey = "\(key)[\(i)]"
            guard case .string(let arg) = item else {
                context.warning(.wrongType, itemKey, "argument \(i) is a \(item.typeName), expected a string — the app cannot be launched by Courier")
                return nil
            }
            if arg.utf8.contains(0) {
                context.warning(.invalidValue, itemKey, "argument \(i) contains a NUL byte, which no argv can carry; remove it — the app cannot be launched by Courier")
                return nil
            }
            if let variable = Identifiers.unresolvedBuildVariable(in: arg) {
                context.warning(.unresolvedBuildVariable, itemKey, "'\(arg)' contains \(variable); Courier substitutes nothing and runs no shell — write the final value — the app cannot be launched by Courier")
                return nil
            }
            argv.append(arg)
        }
        guard !argv[0].isEmpty, !argv[0].hasSuffix("/") else {
            context.warning(.invalidValue, "\(key)[0]", "the program name '\(argv[0])' is empty or a folder; name the executable — the app cannot be launched by Courier")
            return nil
        }
        return LaunchCommand(arguments: argv, manifestDirectory: Paths.directory(of: context.path))
    }

    private func parseQueriesSchemes(_ value: PropertyListValue?, _ context: inout Context) -> [String] {
        let key = "LSApplicationQueriesSchemes"
        guard let value else { return [] }
        var out: [String] = []
        for (i, s) in (context.stringArray(value, key: key) ?? []) {
            if let scheme = checkedScheme(s, key: "\(key)[\(i)]", &context), !out.contains(scheme) { out.append(scheme) }
        }
        return out
    }

    /// `CourierAllowedCallers` of one URL type (`value` nil: anyone).
    private func parseCallerRule(_ value: PropertyListValue?, key: String, _ context: inout Context) -> CallerRule {
        guard let value else { return .anyone }
        var strings: [(index: Int?, value: String)] = []
        switch value {
        case .string(let s):
            strings = [(nil, s)]
        case .array(let items):
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else {
                    context.error(.invalidCallerRule, "\(key)[\(i)]", "this element is a \(item.typeName), expected a string: a bundle id, \(CallerRule.courierAppsWord) or \(CallerRule.anyoneWord) — the app is not registered")
                    continue
                }
                strings.append((i, s))
            }
            if strings.count < items.count { return .anyone }   // refused above
        default:
            context.error(.invalidCallerRule, key, "\(key.split(separator: ".").last ?? "") is a \(value.typeName), expected an array of strings (bundle ids, \(CallerRule.courierAppsWord) or \(CallerRule.anyoneWord)), e.g. <array><string>\(CallerRule.courierAppsWord)</string></array> — the app is not registered")
            return .anyone
        }
        switch CallerRule.parse(strings, keyPath: key) {
        case .success(let (rule, warnings)):
            for warning in warnings { context.warning(.invalidCallerRule, warning.keyPath, warning.message) }
            return rule
        case .failure(let refused):
            for problem in refused.problems { context.error(.invalidCallerRule, problem.keyPath, problem.message + " — the app is not registered") }
            return .anyone
        }
    }

    /// `CourierAllowedDropCallers` (top level); a `CourierAllowedCallers` at the top level is a
    /// misplaced per-scheme rule, refused rather than ignored (ignoring it would admit anyone).
    private func parseDropCallers(_ plist: [String: PropertyListValue], _ context: inout Context) -> CallerRule {
        if plist[Self.allowedCallersKey] != nil {
            context.error(.invalidCallerRule, Self.allowedCallersKey, "\(Self.allowedCallersKey) belongs inside each CFBundleURLTypes entry (who may open those schemes); for who may drop files write \(Self.allowedDropCallersKey) here — the app is not registered")
        }
        return parseCallerRule(plist[Self.allowedDropCallersKey], key: Self.allowedDropCallersKey, &context)
    }

    private func parseDBusActivatable(_ value: PropertyListValue?, hasLaunchCommand: Bool, _ context: inout Context) -> Bool {
        let key = Self.dbusActivatableKey
        guard let value else { return false }
        guard case .boolean(let activatable) = value else {
            context.warning(.wrongType, key, "\(key) is a \(value.typeName), expected a Boolean (<true/>); it is ignored")
            return false
        }
        if activatable && hasLaunchCommand {
            context.warning(.invalidValue, key, "\(key) is true, so the bus starts this app and \(Self.launchArgumentsKey) is not used; remove one of the two keys")
        }
        return activatable
    }

    /// `UILaunchImageFile`: a base name (a `.png` suffix is dropped, as iOS reads it). A value
    /// that is not one is refused with a warning and the app has no launch image at all: falling
    /// back on `Default` would show an image the developer did not name.
    private func parseLaunchImageFile(_ value: PropertyListValue?, _ context: inout Context) -> LaunchImages? {
        let key = Self.launchImageFileKey
        guard let value else { return LaunchImages() }
        // A value that is not a clean string was reported by `string`.
        guard let raw = context.string(value, key: key) else { return nil }
        let base = raw.hasSuffix(".png") ? String(raw.dropLast(4)) : raw
        if let problem = LaunchImages.problem(inBaseName: base) {
            context.warning(.invalidLaunchImage, key, "'\(CleanText.escaped(raw))' \(problem); write the base name of PNG files beside the manifest (e.g. Default for Default-SCHEME.png) — the app launches without a launch image")
            return nil
        }
        return LaunchImages(baseName: base, declared: true)
    }

    // MARK: - Context

    /// Collects diagnostics for one file and offers typed accessors that report wrong types.
    struct Context {
        let path: String
        var diagnostics: [ManifestDiagnostic] = []

        mutating func error(_ code: ManifestDiagnostic.Code, _ key: String, _ message: String) {
            diagnostics.append(ManifestDiagnostic(file: path, keyPath: key, message: message, severity: .error, code: code))
        }

        mutating func warning(_ code: ManifestDiagnostic.Code, _ key: String, _ message: String) {
            diagnostics.append(ManifestDiagnostic(file: path, keyPath: key, message: message, severity: .warning, code: code))
        }

        /// Whether `text` is clean (`CleanText`: no control or bidirectional formatting character);
        /// otherwise a warning naming the key, the character and where it stands. Every string the
        /// parser keeps can reach the bus (`ListApplications`, `courier dump`), where a NUL is not
        /// allowed at all, and a person's terminal, where an escape sequence is a forgery.
        mutating func isClean(_ text: String, key: @autoclosure () -> String) -> Bool {
            guard let violation = CleanText.firstUnclean(in: text) else { return true }
            warning(.uncleanText, key(), "'\(CleanText.escaped(text))' contains \(violation) at character \(violation.offset + 1); names and values Courier shows or puts on the bus are clean text (no control or bidirectional formatting characters) — remove it; the value is ignored")
            return false
        }

        mutating func array(_ value: PropertyListValue?, key: @autoclosure () -> String) -> [PropertyListValue]? {
            guard let value else { return nil }
            guard case .array(let a) = value else {
                warning(.wrongType, key(), "\(key()) is a \(value.typeName), expected an array; it is ignored")
                return nil
            }
            return a
        }

        mutating func dictionary(_ value: PropertyListValue, key: @autoclosure () -> String) -> [String: PropertyListValue]? {
            guard case .dictionary(let d) = value else {
                warning(.wrongType, key(), "\(key()) is a \(value.typeName), expected a dictionary; it is ignored")
                return nil
            }
            return d
        }

        mutating func string(_ value: PropertyListValue?, key: @autoclosure () -> String) -> String? {
            guard let value else { return nil }
            guard case .string(let s) = value else {
                warning(.wrongType, key(), "\(key()) is a \(value.typeName), expected a string; it is ignored")
                return nil
            }
            if let variable = Identifiers.unresolvedBuildVariable(in: s) {
                warning(.unresolvedBuildVariable, key(), "'\(s)' contains the unresolved build setting \(variable); write the final value — it is ignored")
                return nil
            }
            return isClean(s, key: key()) ? s : nil
        }

        /// The string elements of an array with their indices; wrong elements are reported and skipped.
        mutating func stringArray(_ value: PropertyListValue, key: @autoclosure () -> String) -> [(Int, String)]? {
            guard case .array(let items) = value else {
                warning(.wrongType, key(), "\(key()) is a \(value.typeName), expected an array of strings; it is ignored")
                return nil
            }
            var out: [(Int, String)] = []
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else {
                    warning(.wrongType, "\(key())[\(i)]", "this element is a \(item.typeName), expected a string; it is ignored")
                    continue
                }
                guard isClean(s, key: "\(key())[\(i)]") else { continue }
                out.append((i, s))
            }
            return out
        }

        /// Apple accepts a single string where an array of strings is usual (UTTypeConformsTo, tags).
        mutating func stringOrStringArray(_ value: PropertyListValue, key: @autoclosure () -> String) -> [(Int, String)] {
            if case .string(let s) = value { return isClean(s, key: key()) ? [(0, s)] : [] }
            return stringArray(value, key: key()) ?? []
        }

        mutating func enumValue<E: RawRepresentable & CaseIterable>(_ value: PropertyListValue?, key: @autoclosure () -> String, default fallback: E) -> E where E.RawValue == String {
            guard let value else { return fallback }
            guard case .string(let s) = value else {
                warning(.wrongType, key(), "\(key()) is a \(value.typeName), expected one of \(E.allCases.map(\.rawValue).joined(separator: ", ")); using \(fallback.rawValue)")
                return fallback
            }
            if let e = E(rawValue: s) { return e }
            if let e = E.allCases.first(where: { $0.rawValue.lowercased() == s.lowercased() }) { return e }
            warning(.invalidValue, key(), "'\(s)' is not one of \(E.allCases.map(\.rawValue).joined(separator: ", ")); fix the value — using \(fallback.rawValue)")
            return fallback
        }
    }
}
