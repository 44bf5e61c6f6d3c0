import CourierNames

/// The app's caller rules (`CallerPolicy`) on the query paths, so that they predict the open.
///
/// `OpenURL` and drops are refused before anything is launched (`Dispatcher.submit`,
/// `FileDropService.checkCallers`). The queries answer a caller the way its open would end:
/// - `CanOpenURL` is a plain `false` when the app that would be chosen refuses the caller — "can
///   *you* open it?" — so a caller that shows a button only when it may open never shows a dead one;
/// - a dry-run `OpenURL` answers the `NotPermitted` the open would get, naming the rule;
/// - `HandlersForURL` and `ListApplications` are unchanged: they say who handles a scheme (within
///   the `LSApplicationQueriesSchemes` limit, which is applied first, so a rule never tells an
///   app about a scheme it may not ask about), not who would accept this caller.
extension BrokerService {
    /// The refusal an open of `url` routed to `app` from `sender` would meet; nil when admitted.
    func callerRefusal(to app: AppDescriptor, url: String, sender: String, relayed: Bool = false) async -> CourierError? {
        guard !app.callers.admitsAnyone else { return nil }
        let pid = await callerPID(sender)
        let source = relayed ? "" : dispatcher.sourceApplication(uniqueName: sender, pid: pid)
        let caller = CallerPolicy.Caller(sourceApplication: source, uniqueName: sender, pid: pid)
        return app.callers.refusal(of: caller, at: .url(scheme: Self.scheme(of: url)), app: app.bundleID)
    }
}
