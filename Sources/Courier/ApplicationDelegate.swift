/// What an app implements to receive URLs, modelled on `UIApplicationDelegate`.
///
/// Launch: when the broker launched the app to open a URL, `willFinishLaunching` and
/// `didFinishLaunching` see it in `options.url`; if either returns false, `open` is not called for
/// that URL and the caller gets `handled = false` (as on iOS). Then each URL arrives in `open`, one
/// at a time, in the order the broker received them.
public protocol ApplicationDelegate: Sendable {
    func willFinishLaunching(_ application: Application, options: ApplicationLaunchOptions) -> Bool
    func didFinishLaunching(_ application: Application, options: ApplicationLaunchOptions) -> Bool
    /// Opens `url`; return true when handled.
    func open(_ url: String, options: OpenURLOptions, application: Application) async -> Bool
    /// Like `open`, with a reply dictionary for the caller. The default calls `open`.
    func openWithReply(_ url: String, options: OpenURLOptions, application: Application) async -> OpenURLResult
}

extension ApplicationDelegate {
    public func willFinishLaunching(_ application: Application, options: ApplicationLaunchOptions) -> Bool { true }
    public func didFinishLaunching(_ application: Application, options: ApplicationLaunchOptions) -> Bool { true }
    public func open(_ url: String, options: OpenURLOptions, application: Application) async -> Bool { false }
    public func openWithReply(_ url: String, options: OpenURLOptions, application: Application) async -> OpenURLResult {
        OpenURLResult(handled: await open(url, options: options, application: application))
    }
}
