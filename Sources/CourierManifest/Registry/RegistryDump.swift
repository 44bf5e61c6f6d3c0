import CourierTypes
import Foundation

/// Everything in the registry, for `courier dump` (like `lsregister -dump`) and `ListApplications`.
///
/// The JSON form is exactly:
/// `{"applications":[{"bundle_id","name","schemes","document_types":[{"name","content_types","rank"}],"manifest"}],
///   "schemes":{"scheme":[candidates in decision order]},"diagnostics":[{"file","key_path","message"}]}`
/// (the keys in snake_case, as every `courier … --json`: docs/cli.md).
public struct RegistryDump: Sendable, Codable, Hashable {
    public struct DocumentType: Sendable, Codable, Hashable {
        public var name: String
        public var contentTypes: [String]
        public var rank: String

        enum CodingKeys: String, CodingKey {
            case name, contentTypes = "content_types", rank
        }
    }

    public struct Application: Sendable, Codable, Hashable {
        public var bundleIdentifier: String
        public var name: String
        public var schemes: [String]
        public var documentTypes: [DocumentType]
        public var manifest: String

        enum CodingKeys: String, CodingKey {
            case bundleIdentifier = "bundle_id", name, schemes, documentTypes = "document_types", manifest
        }
    }

    public struct Diagnostic: Sendable, Codable, Hashable {
        public var file: String
        public var keyPath: String
        public var message: String

        enum CodingKeys: String, CodingKey {
            case file, keyPath = "key_path", message
        }
    }

    public var applications: [Application]
    /// Scheme → eligible candidates in decision order (the chosen one first).
    public var schemes: [String: [String]]
    public var diagnostics: [Diagnostic]

    /// The text form needs more than the JSON carries (launch commands, ranks, explanations).
    private var text: String = ""

    private enum CodingKeys: String, CodingKey {
        case applications, schemes, diagnostics
    }

    public init(registry: Registry, extraDiagnostics: [ManifestDiagnostic] = []) {
        let apps = registry.sortedApplications
        applications = apps.map { app in
            Application(
                bundleIdentifier: app.bundleIdentifier.rawValue, name: app.name, schemes: app.schemes,
                documentTypes: app.documentTypes.map { DocumentType(name: $0.name, contentTypes: $0.contentTypes, rank: $0.rank.rawValue) },
                manifest: app.path)
        }
        var schemes: [String: [String]] = [:]
        for scheme in registry.claimedSchemes { schemes[scheme] = registry.handlers(forScheme: scheme).bundleIdentifiers }
        self.schemes = schemes
        let all = extraDiagnostics + registry.diagnostics
        diagnostics = all.map { Diagnostic(file: $0.file, keyPath: $0.keyPath, message: $0.message) }
        text = Self.render(registry: registry, apps: apps, diagnostics: all)
    }

    /// One line of JSON with sorted keys, as every `courier … --json` prints.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and arrays cannot fail.
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// The human-readable form.
    public var description: String { text }

    private static func render(registry: Registry, apps: [Manifest], diagnostics: [ManifestDiagnostic]) -> String {
        var out = ""
        out += "\(apps.count) application\(apps.count == 1 ? "" : "s")\n"
        for app in apps {
            out += "\n\(app.bundleIdentifier)  \"\(app.name)\"\n"
            out += "  manifest: \(app.path)\n"
            if app.dbusActivatable {
                out += "  launch: D-Bus activation of \(app.bundleIdentifier); URLs go through org.freedesktop.Application.Open (\(ManifestParser.dbusActivatableKey))\n"
            } else if let launch = app.launchCommand {
                switch launch.executable {
                case .path(let p): out += "  launch: \(launch.displayString)  (executable \(p))\n"
                case .searchPath(let n): out += "  launch: \(launch.displayString)  (\(n) looked up on PATH at launch)\n"
                }
            } else {
                out += "  launch: none — Courier cannot launch this app (no \(ManifestParser.launchArgumentsKey)); it must be started by other means and check in\n"
            }
            for type in app.urlTypes {
                let name = type.name.map { " (\($0))" } ?? ""
                out += "  schemes\(name): \(type.schemes.joined(separator: ", "))  rank \(type.rank.rawValue), role \(type.role.rawValue)\n"
                if !type.allowedCallers.admitsAnyone { out += "    callers: \(type.allowedCallers) (\(ManifestParser.allowedCallersKey))\n" }
            }
            if !app.dropCallers.admitsAnyone { out += "  drops from: \(app.dropCallers) (\(ManifestParser.allowedDropCallersKey))\n" }
            for doc in app.documentTypes {
                out += "  document type \"\(doc.name)\": \(doc.contentTypes.joined(separator: ", "))  rank \(doc.rank.rawValue), role \(doc.role.rawValue)\n"
            }
            for t in app.exportedTypes {
                out += "  exports \(t.identifier) conforming to \(t.conformsTo.joined(separator: ", "))\(t.filenameExtensions.isEmpty ? "" : " (." + t.filenameExtensions.joined(separator: ", .") + ")")\n"
            }
            for t in app.importedTypes {
                out += "  imports \(t.identifier) conforming to \(t.conformsTo.joined(separator: ", "))\n"
            }
            if !app.queriesSchemes.isEmpty { out += "  may query: \(app.queriesSchemes.joined(separator: ", "))\n" }
            if app.urlFormat != nil { out += "  URL format: declared (\(ManifestParser.urlFormatKey))\n" }
        }
        let schemes = registry.claimedSchemes
        if !schemes.isEmpty {
            out += "\nschemes\n"
            for scheme in schemes {
                let r = registry.handlers(forScheme: scheme)
                let list = r.candidates.map { c in c.isEligible ? c.bundleIdentifier : "\(c.bundleIdentifier) [\(c.status.rawValue)]" }
                out += "  \(scheme): \(list.joined(separator: ", "))\n"
            }
        }
        if !diagnostics.isEmpty {
            out += "\n\(diagnostics.count) diagnostic\(diagnostics.count == 1 ? "" : "s")\n"
            for d in diagnostics { out += "  \(d)\n" }
        }
        return out
    }
}
