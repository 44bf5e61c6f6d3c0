/// What an app implements to receive URLs, modelled on `UIApplicationDelegate`.
///
/// Launch: when the broker launched the app to open a URL, `willFinishLaunching` and
/// `didFinishLaunching` see it in `options.url`; if either returns false, `open` is not called for
/// that URL and the caller gets `handled = false` (as on iOS). Then each URL arrives in `open`, one
/// at a time, in the order the broker received them.
///
/// Termination and state (docs/lifecycle.md): before the broker terminates the app (idle timeout,
/// memory pressure, `courier quit`) it sends `WillTerminate`; the library then preserves the state
/// (when `shouldSaveApplicationState` says so, through `willEncodeRestorableState`) and calls
/// `willTerminate`. On the next launch, between `willFinishLaunching` and `didFinishLaunching`, a
/// preserved state is offered to `shouldRestoreApplicationState` and, if accepted, to
/// `didDecodeRestorableState` — the order of the guide's state restoration.
public protocol ApplicationDelegate: Sendable {
    func willFinishLaunching(_ application: Application, options: ApplicationLaunchOptions) -> Bool
    func didFinishLaunching(_ application: Application, options: ApplicationLaunchOptions) -> Bool
    /// Opens `url`; return true when handled.
    func open(_ url: String, options: OpenURLOptions, application: Application) async -> Bool
    /// Like `open`, with a reply dictionary for the caller. The default calls `open`.
    func openWithReply(_ url: String, options: OpenURLOptions, application: Application) async -> OpenURLResult
    /// Arguments that came with a URL for the running app (`courier open --args …`: a launch gets
    /// them after its launch command, in `CommandLine.arguments`). Called before `open`; return
    /// true when the app took them. Default false: the caller is told they were ignored.
    func handleArguments(_ arguments: [String], application: Application) async -> Bool

    /// The app is about to be terminated (`applicationWillTerminate:`); its state, if it opted in,
    /// has just been preserved. Return quickly: the broker signals the process at the deadline.
    func willTerminate(_ application: Application) async
    /// Whether to preserve the state now (`application:shouldSaveApplicationState:`). Default false:
    /// preservation is opt-in.
    func shouldSaveApplicationState(_ application: Application) async -> Bool
    /// Encodes what the person would miss after a relaunch (`application:willEncodeRestorableStateWithCoder:`).
    func willEncodeRestorableState(_ application: Application, coder: inout RestorableStateCoder) async
    /// Whether to restore from `coder` (`application:shouldRestoreApplicationState:`); check
    /// `coder.bundleVersion` to refuse an archive from another version. Default false.
    func shouldRestoreApplicationState(_ application: Application, coder: RestorableStateCoder) async -> Bool
    /// Restores from `coder` (`application:didDecodeRestorableStateWithCoder:`), before
    /// `didFinishLaunching` and before the launch URL is opened.
    func didDecodeRestorableState(_ application: Application, coder: RestorableStateCoder) async
}

extension ApplicationDelegate {
    public func willFinishLaunching(_ application: Application, options: ApplicationLaunchOptions) -> Bool { true }
    public func didFinishLaunching(_ application: Application, options: ApplicationLaunchOptions) -> Bool { true }
    public func open(_ url: String, options: OpenURLOptions, application: Application) async -> Bool { false }
    public func openWithReply(_ url: String, options: OpenURLOptions, application: Application) async -> OpenURLResult {
        OpenURLResult(handled: await open(url, options: options, application: application))
    }
    public func handleArguments(_ arguments: [String], application: Application) async -> Bool { false }
    public func willTerminate(_ application: Application) async {}
    public func shouldSaveApplicationState(_ application: Application) async -> Bool { false }
    public func willEncodeRestorableState(_ application: Application, coder: inout RestorableStateCoder) async {}
    public func shouldRestoreApplicationState(_ application: Application, coder: RestorableStateCoder) async -> Bool { false }
    public func didDecodeRestorableState(_ application: Application, coder: RestorableStateCoder) async {}
}
