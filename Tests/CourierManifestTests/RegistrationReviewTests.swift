import BusTestSupport
import Foundation
import Testing
@testable import CourierManifest

/// What `courier register` decides before installing anything, on real files: a bare program name
/// resolved on the registering user's PATH, a relative one against the user's file (not the copy),
/// an app nothing can reach or launch refused, warnings kept for --strict.
@Suite("Registration review")
struct RegistrationReviewTests {
    static func plist(schemes: [String], launch: String?, extra: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>com.example.app</string>
        <key>CFBundleURLTypes</key><array><dict><key>CFBundleURLSchemes</key><array>\(schemes.map { "<string>\($0)</string>" }.joined())</array></dict></array>
        \(launch.map { "<key>CourierLaunchArguments</key>\($0)" } ?? "")
        \(extra)
        </dict></plist>
        """
    }

    /// An executable file (a copy of /bin/true) at `path` in `folder`.
    static func executable(_ folder: TemporaryFolder, _ name: String) -> String {
        let path = folder.url(name)
        try! FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! FileManager.default.copyItem(atPath: "/bin/true", toPath: path)
        return path
    }

    @Test func aBareNameIsRecordedAsFoundOnTheUsersPath() {
        let folder = TemporaryFolder()
        let tool = Self.executable(folder, "bin/myapp")
        let file = folder.write("Info.plist", Self.plist(schemes: ["myapp"], launch: "<array><string>myapp</string><string>--flag</string></array>"))
        let review = RegistrationReview(ManifestLoader().load(file: file), searchPath: "/nonexistent:\(folder.path)/bin")
        #expect(review.recordedExecutable == tool)
        #expect(review.mayRegister(strict: true), "\(review.diagnostics)")

        let missing = RegistrationReview(ManifestLoader().load(file: file), searchPath: "/nonexistent")
        #expect(missing.recordedExecutable == nil)
        #expect(missing.mayRegister(strict: false) && !missing.mayRegister(strict: true))
        #expect(missing.warnings.map(\.keyPath) == ["CourierLaunchArguments[0]"])
        #expect(missing.warnings[0].message.contains("'myapp' is not on your PATH (/nonexistent)"))
        #expect(missing.warnings[0].file == file)
    }

    @Test func aRelativePathIsResolvedAgainstTheUsersFile() {
        let folder = TemporaryFolder()
        let tool = Self.executable(folder, "app/build/myapp")
        let file = folder.write("app/Info.plist", Self.plist(schemes: ["myapp"], launch: "<array><string>build/myapp</string></array>"))
        let review = RegistrationReview(ManifestLoader().load(file: file), searchPath: nil)
        #expect(review.recordedExecutable == tool)
        #expect(review.mayRegister(strict: true), "\(review.diagnostics)")

        let wrong = folder.write("other/Info.plist", Self.plist(schemes: ["myapp"], launch: "<array><string>build/myapp</string></array>"))
        let notThere = RegistrationReview(ManifestLoader().load(file: wrong), searchPath: nil)
        #expect(notThere.recordedExecutable == folder.url("other/build/myapp"))
        #expect(!notThere.mayRegister(strict: true))
        #expect(notThere.warnings.first?.message.contains("'build/myapp' relative to the folder of this file") == true, "\(notThere.warnings)")
    }

    @Test func anAppNothingReachesOrWithABrokenLaunchKeyIsRefused() {
        let folder = TemporaryFolder()
        let file = folder.write("Info.plist", Self.plist(schemes: ["myapp://"], launch: "<string>myapp</string>"))
        let review = RegistrationReview(ManifestLoader().load(file: file), searchPath: "/bin")
        #expect(!review.mayRegister(strict: false))
        #expect(review.problems.count == 2, "\(review.problems)")
        #expect(review.problems[0].contains("no valid URL scheme"))
        #expect(review.problems[1].contains("CourierLaunchArguments is unusable"))
        #expect(review.warnings.count == 2)

        let notAPlist = RegistrationReview(ManifestLoader().load(file: folder.write("Package.swift", "// swift-tools-version:6.1\n")), searchPath: nil)
        #expect(notAPlist.manifest == nil && !notAPlist.mayRegister(strict: false))
        #expect(notAPlist.diagnostics.allSatisfy { $0.file == folder.url("Package.swift") })
    }

    @Test func noLaunchKeyIsRefusedBecauseNoProcessCouldBeVerifiedAsTheApp() {
        let folder = TemporaryFolder()
        let file = folder.write("Info.plist", Self.plist(schemes: ["myapp"], launch: nil))
        let review = RegistrationReview(ManifestLoader().load(file: file), searchPath: nil)
        #expect(!review.mayRegister(strict: false))
        #expect(review.problems.first?.contains("can neither launch the app nor verify") == true, "\(review.problems)")
    }

    @Test func didYouMeanAndReservedSchemes() throws {
        let folder = TemporaryFolder()
        let file = folder.write("Info.plist", Self.plist(schemes: ["todolist", "notes"], launch: "<array><string>/bin/true</string></array>"))
        var registry = Registry()
        try registry.register(ManifestLoader().load(file: file).manifest!)
        #expect(registry.schemes(near: "todolst") == ["todolist"])
        #expect(registry.schemes(near: "todolsit") == ["todolist"])
        #expect(registry.schemes(near: "TODOLISTS") == ["todolist"])
        #expect(registry.schemes(near: "todolist").isEmpty)
        #expect(registry.schemes(near: "tdlst").isEmpty)
        #expect(registry.noHandlerAdvice(forScheme: "nots").contains("did you mean notes:?"))
        let https = registry.noHandlerAdvice(forScheme: "https")
        #expect(https.contains("reserved") && !https.contains("courier register"))
        #expect(registry.noHandlerAdvice(forScheme: "zzz").contains("courier register MANIFEST"))
    }
}
