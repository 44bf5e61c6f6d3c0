@testable import CourierBroker
import CourierInbox
import CourierManifest
import CourierNames
import Foundation
import Synchronization
import Testing

/// DropFiles in the broker core: files placed in the Inbox, then one batch of `inbox=true`
/// deliveries, with real child processes as apps (no bus).
@Suite("FileDropService")
struct FileDropServiceTests {
    static let todolist = "com.acme.todolist"
    static let viewer = "org.example.viewer"

    static func registry() throws -> Registry {
        var registry = Registry()
        _ = try registry.register(Manifest(bundleIdentifier: try BundleIdentifier(todolist), documentTypes: [
            DocumentTypeDeclaration(name: "Task list", contentTypes: ["public.plain-text"], role: .editor, rank: .owner),
        ], path: "/manifests/todolist.plist"))
        _ = try registry.register(Manifest(bundleIdentifier: try BundleIdentifier(viewer), documentTypes: [
            DocumentTypeDeclaration(name: "Images", contentTypes: ["public.image"], role: .viewer, rank: .default),
        ], path: "/manifests/viewer.plist"))
        return registry
    }

    /// A harness whose apps are `sleep` processes, and a drop service over it.
    static func service() throws -> (Harness, FileDropService) {
        let harness = Harness(["todolist": (todolist, ["/bin/sleep", "30"]), "viewer": (viewer, ["/bin/sleep", "30"])])
        let registry = try registry()
        let inbox = Inbox(containersRoot: harness.directory.url.path + "/courier/containers")
        return (harness, FileDropService(inbox: inbox, dispatcher: harness.dispatcher, registry: { registry }))
    }

    /// Opens files with `contents` under `names`; closes them after `body`.
    static func withFiles<R>(_ harness: Harness, _ files: [(String, String)], _ body: ([DropFile]) async throws -> R) async rethrows -> R {
        try await withFiles(harness, files.map { ($0, Array($1.utf8)) }, body)
    }

    static func withFiles<R>(_ harness: Harness, _ files: [(String, [UInt8])], _ body: ([DropFile]) async throws -> R) async rethrows -> R {
        let fds = files.enumerated().map { index, file in
            let path = harness.directory.url.path + "/source-\(index)"
            _ = FileManager.default.createFile(atPath: path, contents: Data(file.1))
            return open(path, O_RDONLY | O_CLOEXEC)
        }
        defer { fds.forEach { close($0) } }
        return try await body(zip(fds, files).map { DropFile(descriptor: $0, suggestedName: $1.0) })
    }

    @Test func dropLaunchesTheAppOnceAndDeliversTheFilesInOrderAsOneBatch() async throws {
        let (harness, service) = try Self.service()
        let options = Mutex<[Bool]>([])
        harness.deliverer.behaviour.withLock {
            $0 = { delivery, _ in
                options.withLock { $0.append(delivery.facts.droppedFile) }
                return DeliveryAnswer(handled: true)
            }
        }
        let outcome = try await Self.withFiles(harness, [("milk.txt", "milk\n"), ("eggs.txt", "eggs\n"), ("milk.txt", "again\n")]) { files in
            try await service.drop(.init(files: files, bundleID: Self.todolist, sourceApplication: "org.example.sender"))
        }
        let inbox = service.inbox.inboxPath(for: Self.todolist)
        #expect(outcome.bundleIDs == [Self.todolist])
        #expect(outcome.launched)
        #expect(outcome.inboxURLs == ["milk.txt", "eggs.txt", "milk-1.txt"].map { "file://\(inbox)/\($0)" })
        #expect(harness.launcher.count == 1)
        #expect(harness.deliverer.urls(for: Self.todolist) == outcome.inboxURLs)
        #expect(harness.deliverer.delivered.withLock { $0.map(\.sourceApplication) } == Array(repeating: "org.example.sender", count: 3))
        #expect(options.withLock { $0 } == [true, true, true])
        #expect(FileManager.default.contents(atPath: inbox + "/milk-1.txt") == Data("again\n".utf8))
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func emptyBundleIDMeansTheDefaultAppForTheType() async throws {
        let (harness, service) = try Self.service()
        let outcome = try await Self.withFiles(harness, [("list.txt", "milk\n")]) { files in
            try await service.drop(.init(files: files))
        }
        #expect(outcome.bundleIDs == [Self.todolist])
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
                               0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
    static let blob: [UInt8] = [0, 1, 2, 3, 0xFE, 0xFF]

    @Test func aMixedDropGoesToEachFilesOwnApp() async throws {
        let (harness, service) = try Self.service()
        // The image first: the target is no longer chosen by the first file.
        let outcome = try await Self.withFiles(harness, [("pic.png", Self.png), ("list.txt", Array("milk\n".utf8)), ("more.txt", Array("eggs\n".utf8))]) { files in
            try await service.drop(.init(files: files))
        }
        #expect(outcome.routes.map(\.bundleID) == [Self.viewer, Self.todolist, Self.todolist])
        #expect(outcome.routes.map(\.identification.typeIdentifier) == ["public.png", "public.plain-text", "public.plain-text"])
        #expect(outcome.delivered.map(\.index) == [0, 1, 2])
        #expect(harness.deliverer.urls(for: Self.viewer) == ["file://\(service.inbox.inboxPath(for: Self.viewer))/pic.png"])
        #expect(harness.deliverer.urls(for: Self.todolist) == ["list.txt", "more.txt"].map { "file://\(service.inbox.inboxPath(for: Self.todolist))/\($0)" })
        #expect(harness.launcher.count == 2)
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func aFileNobodyAcceptsStopsTheWholeDropAndIsNamed() async throws {
        let (harness, service) = try Self.service()
        let error = await #expect(throws: CourierError.self) {
            try await Self.withFiles(harness, [("list.txt", Array("milk\n".utf8)), ("blob.bin", Self.blob)]) { files in
                try await service.drop(.init(files: files))
            }
        }
        #expect(error?.code == .noHandler)
        #expect(error?.message.contains("\"blob.bin\" (file 2") == true)
        #expect(error?.message.contains("list.txt") == false)
        #expect(harness.launcher.count == 0)
        #expect(!FileManager.default.fileExists(atPath: service.inbox.inboxPath(for: Self.todolist)))
    }

    @Test func whenALaterAppsPartFailsTheEarlierPartIsWithdrawn() async throws {
        let (harness, service) = try Self.service()
        // The viewer's Inbox is a symbolic link: its part is refused after the todolist's was placed.
        let containers = harness.directory.url.path + "/courier/containers"
        let viewerInbox = service.inbox.inboxPath(for: Self.viewer)
        try FileManager.default.createDirectory(atPath: (viewerInbox as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: viewerInbox, withDestinationPath: containers)
        let error = await #expect(throws: CourierError.self) {
            try await Self.withFiles(harness, [("list.txt", Array("milk\n".utf8)), ("pic.png", Self.png)]) { files in
                try await service.drop(.init(files: files))
            }
        }
        #expect(error?.dbusName == "org.courier.Error.UnsafeContainer")
        #expect(error?.message.contains("nothing was delivered to any of them") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: service.inbox.inboxPath(for: Self.todolist)) == [])
        #expect(harness.launcher.count == 0)
    }

    @Test func routesSayWhereEachFileWouldGoWithoutWriting() async throws {
        let (harness, service) = try Self.service()
        let routes = try await Self.withFiles(harness, [("photo.txt", Self.png), ("x.bin", Self.blob)]) { files in
            try service.routes(for: .init(files: files), in: try Self.registry())
        }
        // A PNG named .txt is a PNG: the viewer, not the task list.
        #expect(routes.map(\.bundleID) == [Self.viewer, ""])
        #expect(routes.map(\.accepted) == [true, false])
        #expect(routes[0].identification.reason.contains("contradicts"))
        #expect(!FileManager.default.fileExists(atPath: service.inbox.inboxPath(for: Self.viewer)))
    }

    @Test func withoutWaitingTheDropReturnsOnceTheFilesArePlaced() async throws {
        let (harness, service) = try Self.service()
        let release = Mutex(false)
        harness.deliverer.behaviour.withLock {
            $0 = { _, _ in
                while !release.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
                return DeliveryAnswer(handled: true)
            }
        }
        let (answered, answer) = AsyncStream<[FileDropService.Answer]>.makeStream()
        let outcome = try await Self.withFiles(harness, [("list.txt", "milk\n")]) { files in
            var request = FileDropService.Request(files: files, waitsForAnswers: false)
            request.whenAnswered = { answer.yield($0) }
            return try await service.drop(request)
        }
        #expect(FileManager.default.fileExists(atPath: outcome.delivered[0].path))
        release.withLock { $0 = true }
        // The app's answer, once it comes, goes to `whenAnswered` (the adapter logs it).
        var answers = answered.makeAsyncIterator()
        let summaries = await answers.next()?.map(\.summary)
        #expect(summaries == ["\(outcome.routes[0].bundleID) opened \(outcome.delivered[0].path)"], "\(summaries ?? [])")
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func undeclaredTypeIsNotPermittedAndNothingIsWrittenOrLaunched() async throws {
        let (harness, service) = try Self.service()
        let error = await #expect(throws: CourierError.self) {
            try await Self.withFiles(harness, [("run.sh", "#!/bin/sh\necho hi\n")]) { files in
                try await service.drop(.init(files: files, bundleID: Self.viewer))
            }
        }
        #expect(error?.code == .notPermitted)
        #expect(error?.dbusName == "org.courier.Error.NotPermitted")
        #expect(error?.message.contains("shell-script") == true)
        #expect(harness.launcher.count == 0)
        #expect(!FileManager.default.fileExists(atPath: service.inbox.inboxPath(for: Self.viewer)))
    }

    @Test func aDeclinedFileIsReportedAndTheFilesStayInTheInbox() async throws {
        let (harness, service) = try Self.service()
        harness.deliverer.behaviour.withLock { $0 = { delivery, _ in DeliveryAnswer(handled: !delivery.url.hasSuffix("b.txt")) } }
        let error = await #expect(throws: CourierError.self) {
            try await Self.withFiles(harness, [("a.txt", "a"), ("b.txt", "b")]) { files in
                try await service.drop(.init(files: files, bundleID: Self.todolist))
            }
        }
        #expect(error?.code == .declined)
        #expect(error?.message.contains("b.txt (file 2 of 2)") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: service.inbox.inboxPath(for: Self.todolist)).sorted() == ["a.txt", "b.txt"])
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func unknownAppIsNoHandler() async throws {
        let (harness, service) = try Self.service()
        let error = await #expect(throws: CourierError.self) {
            try await Self.withFiles(harness, [("a.txt", "a")]) { files in
                try await service.drop(.init(files: files, bundleID: "com.acme.nobody"))
            }
        }
        #expect(error?.code == .noHandler)
    }

    @Test func inboxRefusalsKeepTheirNames() async throws {
        let (harness, service) = try Self.service()
        let directory = open(harness.directory.url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(directory) }
        let error = await #expect(throws: CourierError.self) {
            try await service.drop(.init(files: [DropFile(descriptor: directory, suggestedName: "folder")], bundleID: Self.todolist))
        }
        #expect(error?.dbusName == "org.courier.Error.InvalidFile")
        #expect(error?.message.contains("is a directory") == true)
    }
}
