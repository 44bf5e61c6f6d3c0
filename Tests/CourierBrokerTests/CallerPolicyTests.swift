@testable import CourierBroker
import CourierManifest
import CourierNames
import Testing

/// The broker core's caller rules, pure: which caller a policy admits at which door, what the
/// refusal says, and that a refused request changes nothing in the dispatcher's state.
@Suite("CallerPolicy")
struct CallerPolicyTests {
    let policy = CallerPolicy(
        schemes: ["todolist": CallerRule([.app("com.acme.notes")], keyPath: "CFBundleURLTypes[0].CourierAllowedCallers"),
                  "open": .anyone],
        drops: CallerRule([.courierApps], keyPath: "CourierAllowedDropCallers"),
        manifestPath: "/apps/todolist.plist")
    let app = "com.acme.todolist"

    @Test func eachDoorHasItsRule() {
        let notes = CallerPolicy.Caller(sourceApplication: "com.acme.notes")
        let mail = CallerPolicy.Caller(sourceApplication: "com.acme.mail")
        let shell = CallerPolicy.Caller(sourceApplication: "", uniqueName: ":1.42", pid: 4242)
        #expect(policy.refusal(of: notes, at: .url(scheme: "todolist"), app: app) == nil)
        #expect(policy.refusal(of: mail, at: .url(scheme: "todolist"), app: app)?.code == .notPermitted)
        #expect(policy.refusal(of: shell, at: .url(scheme: "open"), app: app) == nil)   // a scheme without a rule
        #expect(policy.refusal(of: shell, at: .url(scheme: "other"), app: app) == nil)
        #expect(policy.refusal(of: mail, at: .drop, app: app) == nil)
        #expect(policy.refusal(of: shell, at: .drop, app: app)?.code == .notPermitted)
        #expect(policy.refusal(of: .init(sourceApplication: app), at: .url(scheme: "todolist"), app: app) == nil)
        #expect(!policy.admitsAnyone)
        #expect(CallerPolicy().admitsAnyone)
        #expect(policy.schemes.keys.sorted() == ["todolist"])   // "anyone" rules are not kept
    }

    @Test func theRefusalSaysWhichRuleRefusedWhom() throws {
        let shell = CallerPolicy.Caller(sourceApplication: "", uniqueName: ":1.42", pid: 4242)
        let message = try #require(policy.refusal(of: shell, at: .url(scheme: "todolist"), app: app)).message
        #expect(message.contains("com.acme.todolist accepts todolist: URLs from only com.acme.notes"), "\(message)")
        #expect(message.contains("CFBundleURLTypes[0].CourierAllowedCallers in /apps/todolist.plist"), "\(message)")
        #expect(message.contains("this caller is not a Courier app (:1.42, pid 4242)"), "\(message)")
        #expect(message.contains("Nothing was launched or delivered"))
        #expect(policy.refusal(of: .init(sourceApplication: "com.acme.mail"), at: .drop, app: app) == nil)   // an app: admitted
        let drop = try #require(policy.refusal(of: shell, at: .drop, app: app)).message
        #expect(drop.contains("accepts dropped files from Courier apps only (not other processes) (CourierAllowedDropCallers in /apps/todolist.plist)"), "\(drop)")
    }

    @Test func aManifestBecomesItsPolicy() throws {
        var manifest = Manifest(bundleIdentifier: try BundleIdentifier(app), urlTypes: [
            URLTypeDeclaration(schemes: ["todolist", "todo"], allowedCallers: CallerRule([.courierApps], keyPath: "CFBundleURLTypes[0].CourierAllowedCallers")),
            URLTypeDeclaration(schemes: ["public"]),
        ], path: "/apps/todolist.plist")
        manifest.dropCallers = CallerRule([.app("com.acme.notes")], keyPath: "CourierAllowedDropCallers")
        let policy = CallerPolicy(manifest)
        #expect(policy.schemes.keys.sorted() == ["todo", "todolist"])
        #expect(policy.rule(for: .url(scheme: "public")).admitsAnyone)
        #expect(policy.drops.entries == [.app("com.acme.notes")])
        #expect(policy.manifestPath == "/apps/todolist.plist")
    }

    @Test func aRefusedRequestWakesNothing() throws {
        let guarded = AppDescriptor(bundleID: app, launchArguments: ["/usr/bin/todolist"], callers: policy)
        let state = DispatcherState(policy: .init(maxQueuedPerApp: 3, crashLoop: .init()))
        var fromShell = OpenRequest(url: "todolist://x", caller: ":1.42")
        fromShell.callerIdentity = CallerIdentity(uniqueName: ":1.42", pid: 4242)
        let refusal = try #require(state.callerRefusal(fromShell, to: guarded))
        #expect(refusal.code == .notPermitted)
        #expect(state.apps.isEmpty)
        // The file a drop hands the dispatcher meets the drop rule, not the scheme's.
        let dropped = OpenRequest(url: "file:///inbox/a.txt", facts: BrokerFacts(sourceApplication: "com.acme.mail", droppedFile: true))
        #expect(state.callerRefusal(dropped, to: guarded) == nil)
        // A relayed open (org.freedesktop.Application.Open) is from no Courier app, even from the app itself.
        var relayed = OpenRequest(url: "todolist://x", options: CallerOptions(relayed: true), facts: BrokerFacts(sourceApplication: app))
        #expect(state.callerRefusal(relayed, to: guarded) != nil)
        relayed.options.relayed = false
        #expect(state.callerRefusal(relayed, to: guarded) == nil)
    }

    @Test func theDispatcherRefusesBeforeLaunching() async throws {
        let harness = Harness(["todolist": ("com.acme.todolist", ["/bin/sleep", "30"])])
        // The table's descriptor has no rule; a resolver with one:
        let guarded = AppDescriptor(bundleID: app, launchArguments: ["/bin/sleep", "30"], callers: policy)
        let dispatcher = Dispatcher(resolver: TableResolver(apps: ["todolist": guarded]), launcher: harness.launcher,
                                    deliverer: harness.deliverer, logger: quietLogger)
        let result = await withCheckedContinuation { continuation in
            dispatcher.submit(OpenRequest(url: "todolist://x", caller: ":1.9")) { continuation.resume(returning: $0) }
        }
        guard case .failure(let error) = result else { Issue.record("admitted: \(result)"); return }
        #expect(error.code == .notPermitted)
        #expect(harness.launcher.count == 0)
        #expect(dispatcher.statuses().isEmpty)
    }
}
