import ArgumentParser
import CourierTools
import CourierManifest
import CourierNames
import DBus
import Foundation

/// `courier register MANIFEST`: check a manifest, install a copy for this user and tell the running
/// broker — all or nothing: a manifest that is refused (by this check or by the broker) leaves no
/// copy behind, and a previous registration of the same app stays as it was.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register an app's Info.plist manifest with Courier.",
        discussion: """
            The manifest is checked first; its warnings are printed. A bare program name in \
            CourierLaunchArguments is looked up on your PATH now, and a relative path against the folder \
            of MANIFEST; the copy, installed as BUNDLE_ID.plist in the first folder the broker of this \
            environment reads ($COURIER_MANIFEST_PATH's first entry when set, else \
            $XDG_DATA_HOME/courier/manifests) so that it survives restarts, records the absolute path, so \
            the broker runs what you meant whatever its own PATH. When a broker runs, it loads the copy at once, else the next broker picks it up.
            """ + " " + CourierExitCode.help([
                (.handled, "registered"),
                (.refused, "refused (the manifest has errors, or the app would be unusable: no URL scheme and no document type, or no or a broken launch command; with --strict, any warning)"),
                (.notPermitted, "not permitted (it would take over a running app: quit it first, or confirm with --replace)"),
                (.cannotOpen, "MANIFEST cannot be read"), (.cannotWrite, "the copy cannot be written"),
                (.brokerUnavailable, "the broker is not reachable"), (.otherError, "any other error"),
            ])
    )

    @Argument(help: "The manifest (an Info.plist with CFBundleIdentifier and CFBundleURLTypes).", completion: .file(extensions: ["plist"]))
    var manifest: String

    @Flag(help: "Refuse the manifest when it has any warning (a dropped scheme, a launch command not found, …).")
    var strict = false

    @Flag(help: "Confirm that the manifest may take over a running app: point its bundle id at another executable, or take a scheme it handles (a re-pointed app is asked to quit). Without it such a change is refused.")
    var replace = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let loaded = ManifestLoader().load(file: manifest)
        let review = RegistrationReview(loaded, searchPath: environment["PATH"])
        for diagnostic in review.diagnostics { report(diagnostic.description) }
        guard let app = review.manifest else {
            let unreadable = loaded.diagnostics.contains { $0.code == .unreadable || $0.code == .notRegularFile }
            report("courier register: \(loaded.path) was not registered (nothing was installed)")
            throw (unreadable ? CourierExitCode.cannotOpen : .refused).exitCode
        }
        guard review.mayRegister(strict: strict) else {
            let reasons = review.problems.isEmpty ? ["it has warnings and --strict was given"] : review.problems
            report("courier register: \(loaded.path) was not registered (nothing was installed): \(reasons.joined(separator: "; "))")
            throw CourierExitCode.refused.exitCode
        }
        let copy = try InstalledManifest.install(source: loaded.path, bundleID: app.bundleIdentifier.rawValue, executable: review.recordedExecutable)
        let launch = review.recordedExecutable.map { " (launch: \($0))" } ?? ""
        // No session bus or no broker: the copy is the registration; the next broker loads it.
        guard let client = await BrokerToolClient.running() else {
            print("registered \(app.bundleIdentifier) from \(loaded.path)\(launch); no broker is running, the next one loads \(copy.destination.path)")
            print(OfflineDesktopEntries.synchronize())
            return
        }
        do throws(CourierError) {
            // The broker reads the copy from this descriptor: only what this process can open.
            let descriptor = open(copy.destination.path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
            guard descriptor >= 0 else { throw CourierError(.invalidManifest, "cannot open \(copy.destination.path): \(String(cString: strerror(errno)))") }
            let bundleID = try await client.registerManifest(file: UnixFD(taking: descriptor), path: copy.destination.path, replace: replace)
            print("registered \(bundleID) from \(loaded.path)\(launch)")
        } catch {
            copy.rollBack()
            // The broker read the copy: name the user's file instead, which is the one to fix.
            let message = error.message.replacingOccurrences(of: copy.destination.path, with: loaded.path)
            report("courier register: \(message) (nothing was installed)")
            throw error.code == .invalidManifest ? CourierExitCode.refused.exitCode : CourierExitCode(error).exitCode
        }
    }

    private func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Where `register` installs manifests and `unregister` deletes them: the layout's registration
/// folder, the one the broker of this environment reads (`CourierLayout.registrationFolder`).
enum UserManifests {
    static var folder: URL { URL(fileURLWithPath: CourierLayout.current().registrationFolder, isDirectory: true) }
}
