import BusTestSupport
import CourierProcess
import CourierTools
import DBus
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier-test-app load`: the broker's load run against a real `courierd` process on a private
/// dbus-daemon (options and defaults in `LoadOptions`).
///
/// 1. Warm-up round: the warm apps (the last `apps − cold`) are launched and exercised by the
///    clients; then courierd's RSS / fds / threads are the baseline.
/// 2. The run: `clients` client processes (one bus connection each) send `opens` OpenURLs over all
///    the apps, at most `inFlight` each awaiting a reply; the cold apps are launched by it.
/// 3. The apps launched by the run are stopped (SIGTERM) and, once the broker has seen them go,
///    courierd's footprint is measured again: same apps running as at the baseline.
/// 4. The apps' records are checked (`DeliveryLedger`, one launch per app), courierd gets SIGTERM
///    and must exit 0 (under AddressSanitizer, LeakSanitizer reports at that exit).
enum LoadRun {
    static func run(arguments: [String]) async throws -> Int32 {
        let options: LoadOptions
        do {
            options = try LoadOptions(arguments: arguments)
        } catch {
            print(error)
            return 64
        }
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let courierd = options.courierd ?? URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("courierd").path
        guard FileManager.default.isExecutableFile(atPath: courierd) else {
            throw LoadError("no courierd at \(courierd): build it (swift build --product courierd) or pass --courierd PATH")
        }
        let bus = try PrivateBus()
        let run = try Harness(options: options, bus: bus, me: me, courierd: courierd)
        var report: LoadReport
        do {
            report = try await run.execute()
        } catch {
            run.cleanUp()
            let log = run.brokerLog()
            bus.stop()
            throw LoadError("\(error)\ncourierd's log (last lines):\n\(log.split(separator: "\n").suffix(30).joined(separator: "\n"))")
        }
        run.cleanUp()
        if !report.passed {
            // The default log lives in the bus folder, removed below: keep the end of it in the report.
            report.brokerLogTail = run.brokerLog().split(separator: "\n").suffix(30).map(String.init)
        }
        bus.stop()
        report.print()
        return report.passed ? 0 : 1
    }

    /// One run's folders, processes and steps.
    final class Harness: @unchecked Sendable {
        let options: LoadOptions
        let bus: PrivateBus
        let me: String
        let courierd: String
        let root: URL
        let manifests: URL
        let containers: URL
        let log: String
        let environment: [String: String]
        var broker: ChildProcess?
        var clients: [ChildProcess] = []
        let deadline: ContinuousClock.Instant

        init(options: LoadOptions, bus: PrivateBus, me: String, courierd: String) throws {
            self.options = options
            self.bus = bus
            self.me = me
            self.courierd = courierd
            deadline = .now + .seconds(options.timeoutSeconds)
            root = bus.directory.appendingPathComponent("load", isDirectory: true)
            manifests = root.appendingPathComponent("manifests", isDirectory: true)
            containers = root.appendingPathComponent("data/courier/containers", isDirectory: true)
            try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
            log = options.brokerLog ?? root.appendingPathComponent("courierd.log").path
            var environment = bus.environment(homesIn: root)
            environment["COURIER_DESKTOP_ENTRIES"] = "0"
            self.environment = environment
            for app in 0..<options.apps {
                let id = LoadPlan.bundleID(app)
                let plist: [String: Any] = [
                    "CFBundleIdentifier": id, "CFBundleName": "Load app \(app)",
                    "CFBundleURLTypes": [["CFBundleURLName": id, "CFBundleURLSchemes": [LoadPlan.scheme(app)]]],
                    "CourierLaunchArguments": [me, "app"],
                    "CFBundleDocumentTypes": [["CFBundleTypeName": "Load drop", "LSItemContentTypes": ["public.plain-text"]]],
                ]
                let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
                try data.write(to: manifests.appendingPathComponent("\(id).plist"))
            }
        }

        func execute() async throws -> LoadReport {
            var report = LoadReport(options: options, courierd: courierd, log: log)
            // A generous launch timeout: 25 apps start at once on a loaded (or sanitized) machine.
            broker = try spawn(
                [courierd, "--manifests", manifests.path, "--log-level", "warning", "--launch-timeout", "120", "--no-desktop-entries"],
                environment: environment, standardError: .file(log, append: true))
            let observer = BrokerToolClient(connection: try bus.connect())
            defer { observer.connection.close() }
            while !(await observer.brokerIsRunning()) {
                guard ContinuousClock.now < deadline, let broker, await broker.wait(timeout: .milliseconds(50)) == nil else {
                    throw LoadError("courierd did not take org.courier.Broker; its log (\(log)):\n\(brokerLog())")
                }
            }
            let pid = broker!.pid

            // 1. Warm-up.
            let warmPlan = LoadPlan(round: "warmup", first: options.cold, count: options.apps - options.cold)
            var warmOpens: [Int] = []
            if warmPlan.count > 0 && options.warmup > 0 {
                warmOpens = split(options.warmup)
                let (summaries, seconds) = try await runClients(warmPlan, opens: warmOpens, drops: options.drops)
                report.warmupSeconds = seconds
                report.noteClients(summaries, round: "warmup")
            }
            try await settle()
            report.baseline = try ProcessFootprint(pid: pid)
            let launchedEarly = (0..<options.cold).filter { !launches(of: $0).isEmpty }
            if !launchedEarly.isEmpty { report.failures.append("cold apps \(launchedEarly) were launched before the run") }

            // 2. The run.
            let runPlan = LoadPlan(round: "run", first: 0, count: options.apps)
            let runOpens = split(options.opens)
            let vanishingOpens = 1_000
            let (summaries, seconds) = try await runClients(runPlan, opens: runOpens, drops: options.drops, vanishing: options.vanishing, vanishingOpens: vanishingOpens)
            report.runSeconds = seconds
            report.opensSeconds = (summaries.map(\.openEnd).max() ?? 0) - (summaries.map(\.openStart).min() ?? 0)
            report.noteClients(summaries, round: "run")
            report.peak = try ProcessFootprint(pid: pid)

            // 3. Back to the baseline's set of running apps.
            for app in 0..<options.cold { for pid in launches(of: app) { kill(pid, SIGTERM) } }
            while true {
                let running = (try? await observer.status()["running"]?.stringArrayValue) ?? nil
                if let running, running.count <= options.apps - options.cold { break }
                guard ContinuousClock.now < deadline else { throw LoadError("the broker still lists \(running ?? []) as running") }
                try await Task.sleep(for: .milliseconds(50))
            }
            report.after = try await footprint(of: pid, backTo: report.baseline)

            // 4. Records, launches, exit.
            var deliveries: [Int: [Substring]] = [:]
            for app in 0..<options.apps {
                let text = (try? String(contentsOf: container(of: app).appendingPathComponent(RecorderApp.deliveriesFile), encoding: .utf8)) ?? ""
                deliveries[app] = text.split(separator: "\n")
                let count = launches(of: app).count
                report.launchCounts.append(count)
                if count != 1 { report.failures.append("\(LoadPlan.bundleID(app)) was launched \(count) times (expected exactly once)") }
            }
            let ledger = DeliveryLedger(deliveries: deliveries)
            if !warmOpens.isEmpty { report.warmup = ledger.check(warmPlan, opens: warmOpens) }
            let vanished = Set(options.clients..<(options.clients + options.vanishing))
            report.run = ledger.check(runPlan, opens: runOpens + Array(repeating: vanishingOpens, count: options.vanishing), mayLose: vanished)
            if options.drops > 0 {
                let drops = Array(repeating: options.drops, count: options.clients)
                var checks = [ledger.checkDrops(runPlan, drops: drops)]
                if !warmOpens.isEmpty { checks.append(ledger.checkDrops(warmPlan, drops: drops)) }
                report.drops = checks
                for plan in warmOpens.isEmpty ? [runPlan] : [warmPlan, runPlan] { report.failures += inboxProblems(plan) }
            }

            let stopping = ContinuousClock.now
            broker?.signal(SIGTERM)
            if let termination = await broker?.wait(timeout: .seconds(60)) {
                report.brokerExit = termination.description
                report.brokerExitSeconds = (ContinuousClock.now - stopping).seconds
                if termination != .exited(0) { report.failures.append("courierd ended with \(termination) after SIGTERM (expected exit 0); log: \(log)") }
            } else {
                broker?.kill()
                report.failures.append("courierd did not exit within 60 s of SIGTERM")
            }
            broker = nil
            report.sanitizerErrors = brokerLog().split(separator: "\n").filter {
                $0.contains("ERROR: AddressSanitizer") || $0.contains("ERROR: LeakSanitizer") || $0.hasPrefix("SUMMARY: ")
            }.map(String.init)
            return report
        }

        /// Runs one round's client processes; returns their summaries and the round's wall time.
        /// `vanishing` more clients (ids after the others) send `vanishingOpens` each and are
        /// SIGKILLed 250, 500, … ms after they start; they have no summary.
        func runClients(_ plan: LoadPlan, opens: [Int], drops: Int, vanishing: Int = 0, vanishingOpens: Int = 0) async throws -> ([ClientSummary], Double) {
            let start = ContinuousClock.now
            let folder = root.appendingPathComponent("clients-\(plan.round)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            clients = try opens.enumerated().map { id, count in
                try spawn(
                    [me, "client", "--id", "\(id)", "--opens", "\(count)", "--round", plan.round,
                     "--first", "\(plan.first)", "--count", "\(plan.count)", "--in-flight", "\(options.inFlight)",
                     "--drops", "\(drops)", "--drop-folder", folder.appendingPathComponent("files-\(id)").path],
                    environment: bus.environment,
                    standardOutput: .file(folder.appendingPathComponent("\(id).json").path),
                    standardError: .file(folder.appendingPathComponent("\(id).err").path, append: true))
            }
            let doomed = try (opens.count..<(opens.count + vanishing)).map { id in
                try spawn(
                    [me, "client", "--id", "\(id)", "--opens", "\(vanishingOpens)", "--round", plan.round,
                     "--first", "\(plan.first)", "--count", "\(plan.count)", "--in-flight", "\(options.inFlight)"],
                    environment: bus.environment, standardOutput: .discard, standardError: .discard)
            }
            clients += doomed
            for client in doomed {
                try await Task.sleep(for: .milliseconds(250))
                client.signal(SIGKILL)
            }
            for client in doomed { _ = await client.wait(timeout: .seconds(10)) }
            var summaries: [ClientSummary] = []
            for (id, client) in clients.prefix(opens.count).enumerated() {
                guard let termination = await client.wait(timeout: deadline - .now) else {
                    throw LoadError("client \(id) of the \(plan.round) round did not finish within --timeout \(options.timeoutSeconds) s")
                }
                let output = (try? Data(contentsOf: folder.appendingPathComponent("\(id).json"))) ?? Data()
                guard termination == .exited(0), let summary = try? JSONDecoder().decode(ClientSummary.self, from: output) else {
                    let errors = (try? String(contentsOf: folder.appendingPathComponent("\(id).err"), encoding: .utf8)) ?? ""
                    throw LoadError("client \(id) of the \(plan.round) round ended with \(termination): \(errors)")
                }
                summaries.append(summary)
            }
            clients = []
            return (summaries, (ContinuousClock.now - start).seconds)
        }

        /// Every drop of the round must be in its app's Inbox, complete, under the name it was sent with.
        func inboxProblems(_ plan: LoadPlan) -> [String] {
            var problems: [String] = []
            for client in 0..<options.clients {
                for drop in 0..<options.drops {
                    let name = plan.dropName(client: client, drop: drop)
                    let file = container(of: plan.app(client: client, sequence: drop)).appendingPathComponent("Documents/Inbox/" + name)
                    let content = try? String(contentsOf: file, encoding: .utf8)
                    if content != plan.dropContent(client: client, drop: drop) {
                        problems.append("\(file.path): \(content.map { "content '\($0)'" } ?? "missing")")
                    }
                }
            }
            return problems.count > 5 ? Array(problems.prefix(5)) + ["… \(problems.count - 5) more Inbox files wrong"] : problems
        }

        /// `total` requests over the clients, as evenly as possible.
        func split(_ total: Int) -> [Int] {
            (0..<options.clients).map { total / options.clients + ($0 < total % options.clients ? 1 : 0) }
        }

        /// Lets the broker finish reacting to clients and apps leaving the bus before measuring.
        func settle() async throws { try await Task.sleep(for: .seconds(1)) }

        /// courierd's (`pid`) footprint once its threads and descriptors are back to `baseline`'s, or after
        /// 10 s: a direct link an app never confirmed keeps a broker thread for up to 5 s after the
        /// app is gone, so a thread or descriptor that is still there after that is a leak.
        func footprint(of pid: Int32, backTo baseline: ProcessFootprint?) async throws -> ProcessFootprint {
            let settled = ContinuousClock.now + .seconds(10)
            while true {
                let now = try ProcessFootprint(pid: pid)
                guard let baseline, ContinuousClock.now < settled else { return now }
                if now.threads <= baseline.threads && now.fds <= baseline.fds { return now }
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        func container(of app: Int) -> URL { containers.appendingPathComponent(LoadPlan.bundleID(app), isDirectory: true) }

        /// The pids an app recorded at its starts.
        func launches(of app: Int) -> [Int32] {
            let text = (try? String(contentsOf: container(of: app).appendingPathComponent(RecorderApp.launchesFile), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { Int32($0) }
        }

        func brokerLog() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// Kills whatever is still running: clients, apps, courierd.
        func cleanUp() {
            clients.forEach { $0.kill() }
            for app in 0..<options.apps { for pid in launches(of: app) where isOurApp(pid) { kill(pid, SIGKILL) } }
            broker?.kill()
        }

        /// Starts `argv` through the shared `Spawner` (clean signal state, only 0–2 inherited).
        func spawn(_ argv: [String], environment: [String: String], standardOutput: SpawnOutput = .inherit,
                   standardError: SpawnOutput = .inherit) throws(LoadError) -> ChildProcess {
            do {
                return try Spawner.start(path: argv[0], arguments: argv, environment: environment,
                                         standardOutput: standardOutput, standardError: standardError)
            } catch {
                throw LoadError("cannot start \(argv[0]): \(error)")
            }
        }

        /// True when `pid` still runs this executable's `app` mode (a recorded pid may have been reused).
        func isOurApp(_ pid: Int32) -> Bool {
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) } == [me, "app"]
        }
    }
}
