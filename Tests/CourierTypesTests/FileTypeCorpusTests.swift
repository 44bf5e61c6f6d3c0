import BusTestSupport
import Foundation
import Testing
@testable import CourierTypes

/// Courier's file types against GIO's (`gio info -a standard::content-type`, the shared-mime-info
/// reference) and against each file's known type, on a corpus `scripts/type-corpus` builds from
/// this machine's files and real tools: about 600 files in 10 categories, each under its right
/// name, a misleading extension and no name. A disagreement with GIO fails unless Courier reports
/// it as one of its documented departures (``FileTypeResolver/Departure``).
@Suite(.serialized) struct FileTypeCorpusTests {
    struct Entry {
        var path: String
        var variant: String
        var category: String
        var known: String
        var gio: String
        var courier: FileTypeIdentification
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let database = MIMEDatabase.system

    /// Builds the corpus in a temporary folder and asks GIO and Courier about every file.
    static func survey() async throws -> [Entry] {
        let folder = TemporaryFolder()
        let root = folder.url("corpus")
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        let built = try await BackgroundProcess.run(repository.appendingPathComponent("scripts/type-corpus").path, [root], environment: environment)
        try #require(built.status == 0, "scripts/type-corpus failed: \(built.errors)")
        let rows = try String(contentsOfFile: root + "/corpus.tsv", encoding: .utf8).split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        let paths = rows.map { root + "/" + $0[0] }
        let gio = try await BackgroundProcess.run("/usr/bin/gio", ["info", "-a", "standard::content-type"] + paths, environment: environment)
        try #require(gio.status == 0, "gio info failed: \(gio.errors)")
        var gioTypes: [String: String] = [:]
        var current: String?
        for line in gio.output.split(separator: "\n") {
            if line.hasPrefix("local path: ") { current = String(line.dropFirst("local path: ".count)) }
            if let path = current, let range = line.range(of: "standard::content-type: ") { gioTypes[path] = String(line[range.upperBound...]) }
        }
        let resolver = FileTypeResolver(types: TypeGraph(mimeDatabase: database))
        return try rows.enumerated().map { index, row in
            let path = paths[index]
            let gioType = try #require(gioTypes[path], "gio said nothing about \(path)")
            return Entry(path: row[0], variant: String(row[0].prefix { $0 != "/" }), category: row[1], known: row[2],
                         gio: gioType, courier: resolver.identify(path: path))
        }
    }

    func same(_ a: String?, _ b: String) -> Bool {
        guard let a else { return false }
        return Self.database.canonical(a) == Self.database.canonical(b)
    }

    @Test func courierAgreesWithGIOAndKnowsAtLeastAsManyTypes() async throws {
        let entries = try await Self.survey()
        #expect(entries.count >= 600)
        for category in ["archive", "office", "image", "media", "font", "source", "cert", "markup", "exec", "noext"] {
            #expect(entries.filter { $0.category == category && $0.variant == "right" }.count >= 20, "category \(category)")
        }
        var undocumented: [String] = []
        var departures: [String] = []
        for e in entries where !same(e.courier.mimeType, e.gio) {
            if let departure = e.courier.departure {
                departures.append("\(e.path) [\(departure.rawValue)]: Courier \(e.courier.mimeType ?? "-"), GIO \(e.gio), known \(e.known)")
            } else {
                undocumented.append("\(e.path) [\(e.category)]: Courier \(e.courier.mimeType ?? "-") (\(e.courier.reason)), GIO \(e.gio), known \(e.known)")
            }
        }
        #expect(undocumented.isEmpty, "Courier and GIO disagree without a documented reason:\n\(undocumented.joined(separator: "\n"))")
        let agreement = Double(entries.count - departures.count - undocumented.count) / Double(entries.count)
        let courierRight = entries.filter { same($0.courier.mimeType, $0.known) }.count
        let gioRight = entries.filter { same($0.gio, $0.known) }.count
        var byVariant: [String] = []
        for variant in ["right", "misleading", "noname"] {
            let part = entries.filter { $0.variant == variant }
            byVariant.append("\(variant) \(part.filter { same($0.courier.mimeType, $0.known) }.count)/\(part.filter { same($0.gio, $0.known) }.count) of \(part.count)")
        }
        print("""
            file-type corpus: \(entries.count) files; Courier agrees with GIO on \(String(format: "%.1f", agreement * 100))% \
            (\(departures.count) documented departures); known type: Courier \(courierRight), GIO \(gioRight) \
            (Courier/GIO by variant: \(byVariant.joined(separator: ", ")))
            \(departures.joined(separator: "\n"))
            """)
        #expect(agreement >= 0.98)
        #expect(courierRight >= gioRight)
    }

    /// docs/manifest.md's table of departures lists exactly the cases the code reports.
    @Test func theDeparturesTableIsTheCode() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("docs/manifest.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "### Where Courier differs from GIO").dropFirst().first)
        let table = section.components(separatedBy: "\n\n").first { $0.hasPrefix("| ") } ?? ""
        let documented = table.split(separator: "\n").dropFirst(2).compactMap { line -> String? in
            let cell = line.split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            return cell.hasPrefix("`") ? String(cell.dropFirst().dropLast()) : nil
        }
        #expect(documented == FileTypeResolver.Departure.allCases.map(\.rawValue))
    }
}
