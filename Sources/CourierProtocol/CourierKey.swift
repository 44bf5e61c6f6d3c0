public import DBus
import CourierNames

/// Every key of the protocol's `a{sv}` dictionaries, with its D-Bus type (docs/dbus-api.md). One
/// key keeps one meaning and one type in every dictionary it appears in.
public enum CourierKey {
    // MARK: OpenURL, DropFiles and OpenFiles options (what a caller sends)

    /// The target app instead of the scheme's owner.
    public static let bundleID = OptionKey<String>(CourierBusNames.OpenURLKey.bundleID)
    /// Validate and resolve only; also set in a dry run's reply.
    public static let dryRun = OptionKey<Bool>(CourierBusNames.OpenURLKey.dryRun)
    /// `DropProgress` signals for this drop carry this token.
    public static let progressToken = OptionKey<String>("progress-token")
    /// `DropFiles`/`OpenFiles`: reply after the apps answered (default true); false: once the files
    /// are durably in the Inboxes and handed to the apps, whose answers the broker logs.
    public static let wait = OptionKey<Bool>("wait")
    /// Any value handed to the app with the URL (at most `CourierLimits.maximumAnnotationBytes`).
    public static let annotation = OptionKey<DBusValue>("annotation")
    /// Open without raising the app's window; also what the app receives.
    public static let background = OptionKey<Bool>(CourierBusNames.OpenURLKey.background)
    /// The XDG activation token for the app's window; also what the app receives.
    public static let activationToken = OptionKey<String>(CourierBusNames.OpenURLKey.activationToken)
    /// The X11 startup notification id (the same token, for X11 toolkits).
    public static let desktopStartupID = OptionKey<String>("desktop-startup-id")
    /// How long the app may take to answer.
    public static let timeoutMS = OptionKey<UInt32>("timeout-ms")
    /// The caller relays a request from someone it cannot identify (`org.freedesktop.Application.Open`).
    public static let relayed = OptionKey<Bool>("relayed")
    /// Arguments for the app (`courier open --args`, `Launch`): after its launch command when the
    /// request launches it, else handed to the running instance with the URL.
    public static let arguments = OptionKey<[String]>("arguments")
    /// Launch without the state the app preserved (`courier open --fresh`, `Launch`).
    public static let fresh = OptionKey<Bool>("fresh")

    // MARK: What an app answers

    /// The app's reply to a URL that came with `arguments`: it took them (the Courier library sets
    /// it when the delegate implements `application(_:handleArguments:)` and returns true).
    public static let argumentsAccepted = OptionKey<Bool>("arguments-accepted")

    // MARK: Launch and Restart replies

    /// The app was already running: nothing was launched.
    public static let alreadyRunning = OptionKey<Bool>("already-running")

    // MARK: What the broker tells an app (Application1.OpenURL options, CheckIn's launch options)

    /// The bundle id of the app that asked, "" when not a known app.
    public static let sourceApplication = OptionKey<String>("source-application")
    /// The camel-case spelling some callers send; the broker never forwards it.
    public static let sourceApplicationCamelCase = OptionKey<String>("sourceApplication")
    /// The URL names a file the broker dropped into the app's Inbox.
    public static let inbox = OptionKey<Bool>("inbox")
    /// The broker's id of the request (the launch request's, in CheckIn's answer).
    public static let requestID = OptionKey<UInt64>("request-id")
    /// The request launched the app.
    public static let launch = OptionKey<Bool>("launch")
    /// CheckIn: the URL the app was launched for.
    public static let url = OptionKey<String>("url")
    /// CheckIn: the state the app preserved when it was last terminated.
    public static let restorationArchive = OptionKey<[UInt8]>("restoration-archive")
    /// CheckIn: where the app attaches its direct link (`BrokerLink1`).
    public static let linkAddress = OptionKey<String>("link-address")

    /// `DropFiles`/`OpenFiles`: batches handed over first with `StageFiles`, in order.
    public static let staged = OptionKey<[String]>("staged")
    /// The share sheet's activity the items are delivered for (an app's own, from its manifest);
    /// also what the app receives.
    public static let shareActivity = OptionKey<String>("share-activity")

    // MARK: ShareActivities options and activity details

    /// Activity kinds or ids the caller leaves out.
    public static let exclude = OptionKey<[String]>("exclude")
    /// The caller's session has a clipboard tool.
    public static let clipboard = OptionKey<Bool>("clipboard")
    /// The caller can run `courier nearby`.
    public static let nearby = OptionKey<Bool>("nearby")
    /// An activity's kind: open-in, app, copy, save, nearby.
    public static let kind = OptionKey<String>("kind")
    /// An app's own activity's name.
    public static let activity = OptionKey<String>("activity")

    // MARK: RegisterManifestWithOptions

    /// The caller confirms it may take over a running app.
    public static let replace = OptionKey<Bool>("replace")

    // MARK: ListApplications rows, ListProcesses rows, a dry run's reply

    public static let name = OptionKey<String>("name")
    public static let schemes = OptionKey<[String]>("schemes")
    /// The app has a command to launch it.
    public static let launchable = OptionKey<Bool>("launchable")
    /// `AppState`'s name: not-running, launching, active, idle, terminating.
    public static let state = OptionKey<String>(CourierBusNames.OpenURLKey.state)
    /// The manifest's file.
    public static let path = OptionKey<String>("path")
    public static let pid = OptionKey<UInt32>("pid")
    /// Another process holds the app's bus name.
    public static let squatted = OptionKey<Bool>("squatted")
    public static let squatterPID = OptionKey<UInt32>("squatter-pid")
    public static let squatterExecutable = OptionKey<String>("squatter-executable")
    /// Who started the app (a bundle id, a unique name, `self`, `-`); the broker's own starter in GetStatus.
    public static let startedBy = OptionKey<String>("started-by")
    /// Requests answered.
    public static let handled = OptionKey<UInt64>("handled")
    /// Requests waiting, the one in flight included.
    public static let queued = OptionKey<UInt32>("queued")
    public static let inFlight = OptionKey<Bool>("in-flight")
    /// The app has not answered a request within the broker's deadline.
    public static let notResponding = OptionKey<Bool>("not-responding")
    /// Consecutive failures.
    public static let failures = OptionKey<UInt32>("failures")
    /// How requests reach the app: `link` or `bus`.
    public static let delivery = OptionKey<String>("delivery")
    public static let uptimeMS = OptionKey<UInt64>("uptime-ms")
    public static let idleMS = OptionKey<UInt64>("idle-ms")
    public static let rssBytes = OptionKey<UInt64>("rss-bytes")
    /// The manifest asks for the app to be relaunched when it ends (`CourierKeepAlive`).
    public static let keepAlive = OptionKey<Bool>("keep-alive")
    /// The manifest asks for the app to start with the broker (`CourierRunAtLoad`).
    public static let runAtLoad = OptionKey<Bool>("run-at-load")
    /// A keep-alive app that kept failing and is no longer relaunched by itself.
    public static let failed = OptionKey<Bool>("failed")
    /// The user took the app out of routing (`courier disable`).
    public static let disabled = OptionKey<Bool>("disabled")
    /// How the app's last instances ended, oldest first: rows of `pid`, `ended-at-ms`,
    /// `lifetime-ms`, `exit-code` or `signal`, `reason`, `requested-by`, `forced`, `unanswered`, `queued`, `log`.
    public static let ends = OptionKey<[[String: DBusValue]]>("ends")
    /// When the instance ended, in milliseconds since the Unix epoch.
    public static let endedAtMS = OptionKey<UInt64>("ended-at-ms")
    /// How long the instance ran.
    public static let lifetimeMS = OptionKey<UInt64>("lifetime-ms")
    /// The instance's exit status (it called exit).
    public static let exitCode = OptionKey<Int32>("exit-code")
    /// The signal that ended the instance.
    public static let signal = OptionKey<Int32>("signal")
    /// What the broker saw end the instance, in words.
    public static let reason = OptionKey<String>("reason")
    /// Who or what asked for the end; absent when nobody did (a crash, the app's own exit).
    public static let requestedBy = OptionKey<String>("requested-by")
    /// Killed with SIGKILL without notice (`courier quit --force`).
    public static let forced = OptionKey<Bool>("forced")
    /// The URL the instance was handling when it ended.
    public static let unanswered = OptionKey<String>("unanswered")
    /// The last lines the instance printed (its log), oldest first.
    public static let log = OptionKey<[String]>("log")

    // MARK: GetStatus

    public static let manifestPaths = OptionKey<[String]>("manifest-paths")
    /// The number of registered apps.
    public static let applications = OptionKey<UInt32>("applications")
    /// The bundle ids of the running apps.
    public static let running = OptionKey<[String]>("running")
    /// A bus connection's unique name (the broker's in GetStatus, the changer's in RegistryChanged).
    public static let uniqueName = OptionKey<String>("unique-name")
    public static let registryChanges = OptionKey<[String]>("registry-changes")
    public static let heldChangeFiles = OptionKey<[String]>("held-change-files")
    public static let heldChangeMessages = OptionKey<[String]>("held-change-messages")

    // MARK: RegistryChanged details

    /// The method or event that changed the registry.
    public static let via = OptionKey<String>("via")
    public static let uid = OptionKey<UInt32>("uid")
    public static let executable = OptionKey<String>("executable")
    /// Manifest files held back.
    public static let held = OptionKey<[String]>("held")

    // MARK: OpenFiles rows

    /// The file's type identifier, and why it was chosen.
    public static let type = OptionKey<String>("type")
    public static let typeReason = OptionKey<String>("type-reason")
    /// The app accepts the file's type.
    public static let accepted = OptionKey<Bool>("accepted")
    /// The delivered file's `file:` URL in the app's Inbox.
    public static let inboxURL = OptionKey<String>("inbox-url")

    // MARK: HandlersForFile, Dump and SetDefault

    /// The MIME type a sender announced for a file; in a reply, the desktop's MIME type for it.
    public static let mimeType = OptionKey<String>("mime-type")
    /// Per handler (bundle id), the declared content type the file's type conforms to.
    public static let matchedTypes = OptionKey<[String: String]>("matched-types")
    /// Why each candidate won or lost (`courier handlers --explain`).
    public static let explanation = OptionKey<String>("explanation")
    /// What to try when no app handles a URL ("did you mean", a reserved scheme's way in).
    public static let advice = OptionKey<String>("advice")
    /// The answer as JSON rather than text.
    public static let json = OptionKey<Bool>("json")
    /// The key is a uniform type identifier, not a scheme.
    public static let forType = OptionKey<Bool>("for-type")
}
