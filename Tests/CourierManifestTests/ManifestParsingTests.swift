import BusTestSupport
import Foundation
import Testing
import CourierNames
@testable import CourierManifest
import CourierTypes

@Suite struct ManifestParsingTests {
    @Test func readsEveryKeyCourierUses() throws {
        let r = parse(plist("""
            <key>CFBundleIdentifier</key><string>com.acme.notes</string>
            <key>CFBundleName</key><string>Notes</string>
            <key>CFBundleDisplayName</key><string>Acme Notes</string>
            <key>CFBundleURLTypes</key><array><dict>
              <key>CFBundleURLName</key><string>com.acme.notes</string>
              <key>CFBundleURLSchemes</key><array><string>notes</string></array>
              <key>CFBundleTypeRole</key><string>Viewer</string>
              <key>LSHandlerRank</key><string>Owner</string>
            </dict></array>
            <key>CFBundleDocumentTypes</key><array><dict>
              <key>CFBundleTypeName</key><string>Note</string>
              <key>LSItemContentTypes</key><array><string>com.acme.note</string><string>public.plain-text</string></array>
              <key>CFBundleTypeRole</key><string>Editor</string>
              <key>LSHandlerRank</key><string>Alternate</string>
            </dict></array>
            <key>UTExportedTypeDeclarations</key><array><dict>
              <key>UTTypeIdentifier</key><string>com.acme.note</string>
              <key>UTTypeConformsTo</key><string>public.json</string>
              <key>UTTypeTagSpecification</key><dict>
                <key>public.filename-extension</key><array><string>.Note</string></array>
                <key>public.mime-type</key><string>Application/X-Note</string>
              </dict>
            </dict></array>
            <key>UTImportedTypeDeclarations</key><array><dict>
              <key>UTTypeIdentifier</key><string>org.other.doc</string>
              <key>UTTypeConformsTo</key><array><string>public.data</string></array>
            </dict></array>
            <key>CourierLaunchArguments</key><array><string>bin/notes</string><string>--url</string></array>
            <key>CourierURLFormat</key><dict><key>Components</key><dict/></dict>
            """), path: "/opt/acme/manifests/notes.plist")
        #expect(r.diagnostics.isEmpty)
        let m = try #require(r.manifest)
        #expect(m.bundleIdentifier.rawValue == "com.acme.notes")
        #expect(m.name == "Acme Notes")
        #expect(m.urlTypes == [URLTypeDeclaration(name: "com.acme.notes", schemes: ["notes"], role: .viewer, rank: .owner)])
        #expect(m.documentTypes == [DocumentTypeDeclaration(name: "Note", contentTypes: ["com.acme.note", "public.plain-text"], role: .editor, rank: .alternate)])
        #expect(m.exportedTypes == [TypeDeclaration(identifier: "com.acme.note", conformsTo: ["public.json"], filenameExtensions: ["note"], mimeTypes: ["application/x-note"])])
        #expect(m.importedTypes.map(\.identifier) == ["org.other.doc"])
        #expect(m.launchCommand?.arguments == ["bin/notes", "--url"])
        #expect(m.launchCommand?.executable == .path("/opt/acme/manifests/bin/notes"))
        #expect(m.urlFormat == .dictionary(["Components": .dictionary([:])]))
        #expect(m.path == "/opt/acme/manifests/notes.plist")
    }

    /// A NUL (written raw or as `&#0;`) or another control character in a name is never kept: it
    /// would break `ListApplications` for every caller (D-Bus strings cannot hold a NUL) and reach
    /// terminals. The value is ignored with a warning naming the key; the app still loads.
    @Test(arguments: ["&#0;", "\u{0}", "&#27;[31m", "\u{1B}[31m", "&#x202E;", "\u{85}"])
    func aControlCharacterInANameIsIgnoredWithAWarningNamingTheKey(_ bad: String) throws {
        let r = parse(appPlist("com.acme.notes", schemes: ["notes"], extra: """
            <key>CFBundleDisplayName</key><string>Acme\(bad)Notes</string>
            <key>CFBundleName</key><string>Notes\(bad)</string>
            <key>CFBundleDocumentTypes</key><array><dict>
              <key>CFBundleTypeName</key><string>Note\(bad)</string>
              <key>LSItemContentTypes</key><array><string>public.plain-text</string></array>
            </dict></array>
            """))
        let m = try #require(r.manifest, "\(r.diagnostics)")
        #expect(m.name == "com.acme.notes")
        #expect(m.documentTypes.first?.name == "public.plain-text")
        let unclean = r.diagnostics.filter { $0.code == .uncleanText }
        #expect(unclean.map(\.keyPath).sorted() == ["CFBundleDisplayName", "CFBundleDocumentTypes[0].CFBundleTypeName", "CFBundleName"], "\(r.diagnostics)")
        #expect(unclean.allSatisfy { $0.severity == .warning && $0.message.contains("\\u{") && !$0.message.unicodeScalars.contains { !CleanText.isClean($0) } })
    }

    @Test func aCleanNameWithLettersOfAnyScriptIsKept() throws {
        let r = parse(appPlist("com.acme.notes", extra: "<key>CFBundleName</key><string>Ноты 📝 ملاحظات</string>"))
        #expect(r.manifest?.name == "Ноты 📝 ملاحظات")
        #expect(r.diagnostics.allSatisfy { $0.code != .uncleanText })
    }

    @Test func launchArgumentsResolveAgainstTheManifestFolderOrPATH() {
        func launch(_ argv0: String) -> LaunchCommand.Executable? {
            parse(appPlist("com.acme.app", extra: "<key>CourierLaunchArguments</key><array><string>\(argv0)</string></array>"), path: "/srv/apps/m/app.plist").manifest?.launchCommand?.executable
        }
        #expect(launch("todolist") == .searchPath("todolist"))
        #expect(launch("./bin/app") == .path("/srv/apps/m/bin/app"))
        #expect(launch("../bin/app") == .path("/srv/apps/bin/app"))
        #expect(launch("/usr/bin/app") == .path("/usr/bin/app"))
    }

    @Test func bareLaunchNameIsLookedUpOnPATHAtLaunchTime() throws {
        let folder = TemporaryFolder()
        let bin = folder.subfolder("bin")
        let tool = folder.write("bin/mytool", "#!/bin/sh\n")
        chmod(tool, 0o755)
        let command = LaunchCommand(arguments: ["mytool"], manifestDirectory: "/nowhere")
        #expect(command.resolvedExecutable(searchPath: "/nonexistent::\(bin)") == tool)
        #expect(command.resolvedExecutable(searchPath: "/nonexistent") == nil)
    }

    @Test func manifestWithoutLaunchKeyStillRegistersItsClaims() throws {
        let m = try #require(parse(appPlist("com.acme.app", schemes: ["acme"])).manifest)
        #expect(m.launchCommand == nil)
        #expect(!m.canLaunch)
        var registry = Registry(types: TypeGraph(mimeDatabase: .empty))
        try registry.register(m)
        #expect(registry.handlers(forScheme: "acme").bundleIdentifiers == ["com.acme.app"])
        #expect(RegistryDump(registry: registry).description.contains("Courier cannot launch this app"))
    }

    @Test func unknownKeysAreIgnored() {
        let r = parse(appPlist("com.acme.app", schemes: ["a"], extra: "<key>UIWhatever</key><dict><key>x</key><date>2020-01-01T00:00:00Z</date></dict><key>NSFoo</key><data>AAE=</data>"))
        #expect(r.manifest?.schemes == ["a"])
        #expect(r.diagnostics.isEmpty)
    }

    /// A real app's Info.plist as Xcode leaves it (build settings unresolved in keys Courier does
    /// not read) with the Linux launch key added, loads as it is, without a diagnostic.
    @Test func realWorldShapedInfoPlistLoadsAsItIs() throws {
        let r = parse(realWorldInfoPlist, path: "/apps/Acme/Info.plist")
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        let m = try #require(r.manifest)
        #expect(m.bundleIdentifier.rawValue == "com.acme.todolist")
        #expect(m.name == "To-Do")
        #expect(m.schemes == ["todolist", "x-acme-todo"])
        #expect(m.documentTypes.map(\.contentTypes) == [["public.plain-text"], ["com.acme.todolist.list"]])
        #expect(m.exportedTypes.first?.filenameExtensions == ["todo"])
        #expect(m.queriesSchemes == ["mailto", "notes"])
        #expect(m.launchCommand?.arguments == ["todolist", "--courier"])
    }
}

let realWorldInfoPlist = """
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>BuildMachineOSBuild</key><string>22G91</string>
	<key>CFBundleDevelopmentRegion</key><string>$(DEVELOPMENT_LANGUAGE)</string>
	<key>CFBundleDisplayName</key><string>To-Do</string>
	<key>CFBundleExecutable</key><string>$(EXECUTABLE_NAME)</string>
	<key>CFBundleIcons</key>
	<dict>
		<key>CFBundlePrimaryIcon</key>
		<dict>
			<key>CFBundleIconFiles</key><array><string>AppIcon60x60</string></array>
			<key>CFBundleIconName</key><string>AppIcon</string>
		</dict>
	</dict>
	<key>CFBundleIdentifier</key><string>com.acme.todolist</string>
	<key>CFBundleInfoDictionaryVersion</key><string>6.0</string>
	<key>CFBundleName</key><string>ToDoList</string>
	<key>CFBundlePackageType</key><string>$(PRODUCT_BUNDLE_PACKAGE_TYPE)</string>
	<key>CFBundleShortVersionString</key><string>$(MARKETING_VERSION)</string>
	<key>CFBundleSupportedPlatforms</key><array><string>iPhoneOS</string></array>
	<key>CFBundleVersion</key><string>$(CURRENT_PROJECT_VERSION)</string>
	<key>CFBundleURLTypes</key>
	<array>
		<dict>
			<key>CFBundleTypeRole</key><string>Editor</string>
			<key>CFBundleURLIconFile</key><string>todo-url</string>
			<key>CFBundleURLName</key><string>com.acme.todolist</string>
			<key>CFBundleURLSchemes</key><array><string>todolist</string><string>x-acme-todo</string></array>
		</dict>
	</array>
	<key>CFBundleDocumentTypes</key>
	<array>
		<dict>
			<key>CFBundleTypeIconFiles</key><array/>
			<key>CFBundleTypeName</key><string>Text</string>
			<key>CFBundleTypeRole</key><string>Editor</string>
			<key>LSHandlerRank</key><string>Alternate</string>
			<key>LSItemContentTypes</key><array><string>public.plain-text</string></array>
		</dict>
		<dict>
			<key>CFBundleTypeName</key><string>To-Do List</string>
			<key>CFBundleTypeRole</key><string>Editor</string>
			<key>LSHandlerRank</key><string>Owner</string>
			<key>LSItemContentTypes</key><array><string>com.acme.todolist.list</string></array>
			<key>LSTypeIsPackage</key><false/>
		</dict>
	</array>
	<key>UTExportedTypeDeclarations</key>
	<array>
		<dict>
			<key>UTTypeConformsTo</key><array><string>public.plain-text</string></array>
			<key>UTTypeDescription</key><string>To-Do List</string>
			<key>UTTypeIconFiles</key><array/>
			<key>UTTypeIdentifier</key><string>com.acme.todolist.list</string>
			<key>UTTypeTagSpecification</key>
			<dict><key>public.filename-extension</key><array><string>todo</string></array></dict>
		</dict>
	</array>
	<key>DTCompiler</key><string>com.apple.compilers.llvm.clang.1_0</string>
	<key>DTPlatformBuild</key><string>20E238</string>
	<key>DTPlatformName</key><string>iphoneos</string>
	<key>DTPlatformVersion</key><string>16.4</string>
	<key>DTSDKBuild</key><string>20E238</string>
	<key>DTSDKName</key><string>iphoneos16.4</string>
	<key>DTXcode</key><string>1431</string>
	<key>DTXcodeBuild</key><string>14E300c</string>
	<key>ITSAppUsesNonExemptEncryption</key><false/>
	<key>LSApplicationCategoryType</key><string>public.app-category.productivity</string>
	<key>LSApplicationQueriesSchemes</key><array><string>mailto</string><string>notes</string></array>
	<key>LSRequiresIPhoneOS</key><true/>
	<key>LSSupportsOpeningDocumentsInPlace</key><true/>
	<key>MinimumOSVersion</key><string>15.0</string>
	<key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><false/></dict>
	<key>NSCameraUsageDescription</key><string>$(PRODUCT_NAME) scans paper lists.</string>
	<key>NSHumanReadableCopyright</key><string>© 2008 Acme</string>
	<key>NSUserActivityTypes</key><array><string>$(PRODUCT_BUNDLE_IDENTIFIER).open-list</string></array>
	<key>UIApplicationSceneManifest</key>
	<dict>
		<key>UIApplicationSupportsMultipleScenes</key><true/>
		<key>UISceneConfigurations</key>
		<dict>
			<key>UIWindowSceneSessionRoleApplication</key>
			<array><dict>
				<key>UISceneConfigurationName</key><string>Default Configuration</string>
				<key>UISceneDelegateClassName</key><string>$(PRODUCT_MODULE_NAME).SceneDelegate</string>
			</dict></array>
		</dict>
	</dict>
	<key>UIBackgroundModes</key><array><string>fetch</string><string>remote-notification</string></array>
	<key>UIDeviceFamily</key><array><integer>1</integer><integer>2</integer></array>
	<key>UILaunchStoryboardName</key><string>LaunchScreen</string>
	<key>UIRequiredDeviceCapabilities</key><array><string>arm64</string></array>
	<key>UIStatusBarStyle</key><string>UIStatusBarStyleDefault</string>
	<key>UISupportedInterfaceOrientations</key>
	<array><string>UIInterfaceOrientationPortrait</string><string>UIInterfaceOrientationLandscapeLeft</string></array>
	<key>UIFileSharingEnabled</key><true/>
	<key>UTImportedTypeDeclarations</key><array/>
	<key>CourierLaunchArguments</key><array><string>todolist</string><string>--courier</string></array>
</dict>
</plist>
"""
