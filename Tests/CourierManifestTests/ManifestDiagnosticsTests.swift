import Foundation
import Testing
@testable import CourierManifest

/// One test per diagnostic the issue lists: each names the file, the key path and what to do.
@Suite struct ManifestDiagnosticsTests {
    @Test func missingBundleIdentifierRefusesTheManifest() {
        let r = parse(plist("<key>CFBundleName</key><string>X</string>"), path: "/apps/x.plist")
        #expect(r.manifest == nil)
        let d = r.diagnostic(.missingBundleIdentifier)
        #expect(d?.file == "/apps/x.plist")
        #expect(d?.keyPath == "CFBundleIdentifier")
        #expect(d?.severity == .error)
        #expect(d?.message.contains("add one") == true)
    }

    @Test(arguments: ["noDots", "com..acme", "com.-acme", "com.acme.to do", ".com.acme", "com.acme.", "com.acmé.app"])
    func invalidBundleIdentifierRefusesTheManifest(_ id: String) {
        let r = parse(appPlist(id, schemes: ["todolist"]))
        #expect(r.manifest == nil)
        #expect(r.codes() == [.invalidBundleIdentifier])
        #expect(r.diagnostics[0].keyPath == "CFBundleIdentifier")
    }

    /// Real apps have elements that start with a digit (`com.8bit.bitwarden`) or hold a hyphen: they
    /// are registered under their own identifier (the bus sees the mapped name, `BundleIdentifier`).
    @Test(arguments: ["com.8bit.bitwarden", "com.1acme", "org.7-zip.Zipper"])
    func bundleIdentifiersThatAreNotBusNamesAreAccepted(_ id: String) {
        let r = parse(appPlist(id, schemes: ["todolist"]))
        #expect(r.manifest?.bundleIdentifier.rawValue == id)
        #expect(r.diagnostics.isEmpty)
    }

    @Test func bundleIdentifierOfWrongTypeIsReported() {
        let r = parse(plist("<key>CFBundleIdentifier</key><integer>42</integer>"))
        #expect(r.manifest == nil)
        #expect(r.codes() == [.wrongType])
        #expect(r.diagnostics[0].message.contains("integer"))
    }

    @Test func unresolvedBuildVariableInBundleIdentifierIsReported() {
        let r = parse(appPlist("$(PRODUCT_BUNDLE_IDENTIFIER)", schemes: ["todolist"]))
        #expect(r.manifest == nil)
        let d = r.diagnostic(.unresolvedBuildVariable)
        #expect(d?.keyPath == "CFBundleIdentifier")
        #expect(d?.message.contains("$(PRODUCT_BUNDLE_IDENTIFIER)") == true)
    }

    @Test func unresolvedBuildVariableInSchemeDropsOnlyThatScheme() {
        let r = parse(appPlist("com.acme.app", schemes: ["${APP_SCHEME}", "good"]))
        #expect(r.manifest?.schemes == ["good"])
        let d = r.diagnostic(.unresolvedBuildVariable)
        #expect(d?.keyPath == "CFBundleURLTypes[0].CFBundleURLSchemes[0]")
        #expect(d?.severity == .warning)
    }

    @Test(arguments: ["1abc", "to do", "", "tödo", "x_y", "todolist://", "todolist:"])
    func invalidSchemeNameIsDroppedWithItsKeyPath(_ scheme: String) {
        let r = parse(appPlist("com.acme.app", schemes: ["fine", scheme]))
        #expect(r.manifest?.schemes == ["fine"])
        let d = r.diagnostic(.invalidScheme)
        #expect(d?.keyPath == "CFBundleURLTypes[0].CFBundleURLSchemes[1]")
        #expect(d?.message.contains("ignored") == true)
    }

    @Test func schemesAreLowercasedAndDigitsPlusDotAndDashAreValid() {
        let r = parse(appPlist("com.acme.app", schemes: ["ToDoList", "x-callback-url", "web+app.v2"]))
        #expect(r.manifest?.schemes == ["todolist", "x-callback-url", "web+app.v2"])
        #expect(r.diagnostics.isEmpty)
    }

    @Test func valuesOfTheWrongTypeAreReportedWithTheirKeyPath() {
        let r = parse(plist("""
            <key>CFBundleIdentifier</key><string>com.acme.app</string>
            <key>CFBundleURLTypes</key><array>
              <dict><key>CFBundleURLSchemes</key><string>todolist</string></dict>
              <string>not a dict</string>
              <dict><key>CFBundleURLSchemes</key><array><integer>3</integer><string>ok</string></array>
                    <key>LSHandlerRank</key><true/></dict>
            </array>
            <key>CFBundleDocumentTypes</key><dict/>
            """))
        #expect(r.manifest?.schemes == ["ok"])
        let paths = r.diagnostics.filter { $0.code == .wrongType }.map(\.keyPath)
        #expect(paths == [
            "CFBundleURLTypes[0].CFBundleURLSchemes", "CFBundleURLTypes[1]",
            "CFBundleURLTypes[2].LSHandlerRank", "CFBundleURLTypes[2].CFBundleURLSchemes[0]", "CFBundleDocumentTypes",
        ])
        #expect(r.diagnostics.allSatisfy { $0.severity == .warning })
    }

    @Test func invalidRankIsReportedAndDefaultIsUsed() {
        let r = parse(appPlist("com.acme.app", schemes: ["a"], rank: "Boss"))
        #expect(r.manifest?.urlTypes.first?.rank == .default)
        #expect(r.diagnostic(.invalidValue)?.keyPath == "CFBundleURLTypes[0].LSHandlerRank")
    }

    @Test func duplicateSchemesAreReportedCaseInsensitively() {
        let r = parse(plist("""
            <key>CFBundleIdentifier</key><string>com.acme.app</string>
            <key>CFBundleURLTypes</key><array>
              <dict><key>CFBundleURLSchemes</key><array><string>todo</string></array></dict>
              <dict><key>CFBundleURLSchemes</key><array><string>TODO</string><string>other</string></array></dict>
            </array>
            """))
        #expect(r.manifest?.schemes == ["todo", "other"])
        let d = r.diagnostic(.duplicateScheme)
        #expect(d?.keyPath == "CFBundleURLTypes[1].CFBundleURLSchemes[0]")
        #expect(d?.message.contains("CFBundleURLTypes[0].CFBundleURLSchemes[0]") == true)
    }

    @Test func queriesSchemesAreReadButNeverClaims() {
        let r = parse(appPlist("com.acme.app", extra: "<key>LSApplicationQueriesSchemes</key><array><string>Notes</string><string>tasks</string></array>"))
        #expect(r.manifest?.schemes == [])
        #expect(r.manifest?.queriesSchemes == ["notes", "tasks"])
        #expect(r.manifest?.mayQuery(scheme: "NOTES") == true)
    }

    @Test func topLevelThatIsNotADictionaryIsNotAManifest() {
        let r = parse("""
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><array><string>x</string></array></plist>
            """)
        #expect(r.manifest == nil)
        #expect(r.codes() == [.notPropertyList])
    }

    @Test func invalidURLFormatIsReportedAndTheAppStillLoads() {
        let r = parse(appPlist("com.acme.app", schemes: ["a"], extra: "<key>CourierURLFormat</key><string>query required</string>"))
        #expect(r.manifest != nil)
        #expect(r.manifest?.urlFormat == nil)
        #expect(r.diagnostic(.invalidURLFormat)?.keyPath.hasPrefix("CourierURLFormat") == true)
    }

    @Test func invalidURLFormatNamesTheKeyPathInsideTheFormat() {
        let r = parse(appPlist("com.acme.app", schemes: ["a"], extra: """
            <key>CourierURLFormat</key><dict><key>Components</key><dict>
              <key>fragment</key><dict><key>Presense</key><string>required</string></dict>
            </dict></dict>
            """))
        #expect(r.manifest?.urlFormat == nil)
        let d = r.diagnostic(.invalidURLFormat)
        #expect(d?.keyPath == "CourierURLFormat.Components.fragment.Presense")
        #expect(d?.message.contains("unknown key") == true)
    }

    @Test func launchArgumentsMustBeAnArrayOfStrings() {
        let r = parse(appPlist("com.acme.app", extra: "<key>CourierLaunchArguments</key><string>todolist --x</string>"))
        #expect(r.manifest != nil)
        #expect(r.manifest?.launchCommand == nil)
        #expect(r.diagnostic(.wrongType)?.keyPath == "CourierLaunchArguments")
        #expect(r.diagnostic(.wrongType)?.message.contains("never runs a shell") == true)
    }

    @Test func documentTypeWithoutContentTypesIsDropped() {
        let r = parse(appPlist("com.acme.app", extra: """
            <key>CFBundleDocumentTypes</key><array><dict><key>CFBundleTypeName</key><string>Docs</string>
            <key>CFBundleTypeIconFile</key><string>Docs.icns</string></dict></array>
            """))
        #expect(r.manifest?.documentTypes == [])
        #expect(r.diagnostic(.invalidValue)?.keyPath == "CFBundleDocumentTypes[0].LSItemContentTypes")
    }
}
