import BusTestSupport
import DBus
import Foundation
import Synchronization
import Testing

/// Dispatch, standard errors, properties, signals, names, credentials, timeouts, disconnection.
@Suite struct ServingTests {
    func call(_ c: DBusConnection, _ method: MemberName, _ args: [DBusValue] = [], interface: InterfaceName? = EchoService.interface,
              path: ObjectPath = EchoService.path) async throws -> [DBusValue] {
        try await c.call(EchoService.name, path: path, interface: interface, method: method, args)
    }

    @Test func unknownObjectInterfaceMethodAndWrongSignatureGetStandardErrors() async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let c = try bus.connect()
            defer { c.close() }
            await expectError(DBusError.unknownObjectName) { _ = try await call(c, "Echo", [.string("x")], path: "/nope") }
            await expectError(DBusError.unknownInterfaceName) { _ = try await call(c, "Echo", [.string("x")], interface: "org.nope.I") }
            await expectError(DBusError.unknownMethodName) { _ = try await call(c, "Nope") }
            await expectError(DBusError.invalidArgsName) { _ = try await call(c, "Echo", [.int32(1)]) }
            // An fd where a string belongs.
            let fd = try UnixFD(duplicating: 1)
            await expectError(DBusError.invalidArgsName) { _ = try await call(c, "Echo", [.unixFD(fd)]) }
            // No interface given: the method is found by name.
            #expect(try await call(c, "Echo", [.string("x")], interface: nil) == [.string("x")])
        }
    }

    @Test func peerInterfaceAnswersPingAndMachineID() async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let c = try bus.connect()
            defer { c.close() }
            #expect(try await call(c, "Ping", interface: "org.freedesktop.DBus.Peer") == [])
            let id = try await call(c, "GetMachineId", interface: "org.freedesktop.DBus.Peer")
            #expect(id.first?.stringValue?.count == 32)
        }
    }

    @Test func propertiesGetSetGetAllAndChangeSignal() async throws {
        try await withPrivateBus { bus in
            let value = Mutex<String>("initial")
            let iface = DBusInterface(
                "org.courier.test.Props1",
                properties: [
                    DBusProperty("Name", type: .string, get: { .string(value.withLock { $0 }) }, set: { v in value.withLock { $0 = v.stringValue! } }),
                    DBusProperty("Version", type: .uint32, get: { .uint32(3) }),
                ])
            let service = try bus.connect()
            defer { service.close() }
            try service.export([iface], at: "/props")
            let c = try bus.connect()
            defer { c.close() }
            let props: InterfaceName = "org.freedesktop.DBus.Properties"
            let dest = service.uniqueName
            let changes = try await c.signals(matching: MatchRule(path: "/props", interface: props, member: "PropertiesChanged"))
            #expect(try await c.call(dest, path: "/props", interface: props, method: "Get", [.string("org.courier.test.Props1"), .string("Name")]) == [.variant(.string("initial"))])
            _ = try await c.call(dest, path: "/props", interface: props, method: "Set", [.string("org.courier.test.Props1"), .string("Name"), .variant(.string("new"))])
            #expect(value.withLock { $0 } == "new")
            let all = try await c.call(dest, path: "/props", interface: props, method: "GetAll", [.string("org.courier.test.Props1")])
            #expect(all.first?.vardictValue == ["Name": .string("new"), "Version": .uint32(3)])
            await expectError(DBusError.propertyReadOnlyName) {
                _ = try await c.call(dest, path: "/props", interface: props, method: "Set", [.string("org.courier.test.Props1"), .string("Version"), .variant(.uint32(4))])
            }
            await expectError(DBusError.invalidArgsName) {
                _ = try await c.call(dest, path: "/props", interface: props, method: "Set", [.string("org.courier.test.Props1"), .string("Name"), .variant(.int32(4))])
            }
            await expectError(DBusError.unknownPropertyName) {
                _ = try await c.call(dest, path: "/props", interface: props, method: "Get", [.string("org.courier.test.Props1"), .string("Nope")])
            }
            var iterator = changes.makeAsyncIterator()
            let signal = try #require(await iterator.next())
            #expect(signal.body.first == .string("org.courier.test.Props1"))
            #expect(signal.body.dropFirst().first?.vardictValue == ["Name": .string("new")])
        }
    }

    @Test func subscribedSignalsArriveInOrder() async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let c = try bus.connect()
            defer { c.close() }
            let ticks = try await c.signals(matching: MatchRule(interface: EchoService.interface, member: "Tick"))
            for i in 0..<5 {
                try service.emitSignal(path: EchoService.path, interface: EchoService.interface, member: "Tick", [.uint32(UInt32(i))])
            }
            var got: [UInt32] = []
            for await s in ticks {
                got.append(s.body.first?.uint32Value ?? 99)
                #expect(s.sender == service.uniqueName)
                if got.count == 5 { break }
            }
            #expect(got == [0, 1, 2, 3, 4])
        }
    }

    @Test func nameOwnershipQueueingAndOwnerChanges() async throws {
        try await withPrivateBus { bus in
            let a = try bus.connect()
            defer { a.close() }
            let b = try bus.connect()
            defer { b.close() }
            let watcher = try bus.connect()
            defer { watcher.close() }
            let name: BusName = "org.courier.test.Owned"
            let changes = try await watcher.nameOwnerChanges(for: name)
            #expect(try await a.requestName(name) == .primaryOwner)
            #expect(try await a.requestName(name) == .alreadyOwner)
            #expect(try await b.requestName(name, flags: .doNotQueue) == .exists)
            #expect(try await b.requestName(name) == .inQueue)
            #expect(try await watcher.nameOwner(of: name) == a.uniqueName)
            #expect(try await a.releaseName(name) == .released)
            #expect(try await watcher.nameOwner(of: name) == b.uniqueName)
            b.close()
            var events: [NameOwnerChange] = []
            for await e in changes {
                events.append(e)
                if events.count == 3 { break }
            }
            #expect(events == [
                NameOwnerChange(name: name, oldOwner: nil, newOwner: a.uniqueName),
                NameOwnerChange(name: name, oldOwner: a.uniqueName, newOwner: b.uniqueName),
                NameOwnerChange(name: name, oldOwner: b.uniqueName, newOwner: nil),
            ])
            #expect(try await watcher.nameOwner(of: name) == nil)
        }
    }

    @Test func callerCredentialsAreThisProcess() async throws {
        try await withPrivateBus { bus in
            let creds = Mutex<Credentials?>(nil)
            let service = try bus.connect()
            defer { service.close() }
            try service.export(
                [DBusInterface("org.courier.test.Who1", methods: [
                    DBusMethod("Who") { call in
                        let c = try await call.connection.credentials(of: call.sender!)
                        creds.withLock { $0 = c }
                        return []
                    }
                ])], at: "/who")
            let c = try bus.connect()
            defer { c.close() }
            _ = try await c.call(service.uniqueName, path: "/who", interface: "org.courier.test.Who1", method: "Who")
            let got = try #require(creds.withLock { $0 })
            #expect(got.processID == UInt32(getpid()))
            #expect(got.userID == UInt32(getuid()))
            // A peer that is gone has no credentials: an error, never a default.
            let gone = try bus.connect()
            let goneName = gone.uniqueName!
            gone.close()
            // Once the bus has seen it go (bounded).
            for _ in 0..<1000 {
                if try await c.nameOwner(of: goneName) == nil { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            await #expect(throws: DBusError.self) { _ = try await c.credentials(of: goneName) }
        }
    }

    @Test func handlerCanCallItsOwnConnectionWithoutDeadlock() async throws {
        try await withPrivateBus { bus in
            let service = try bus.connect()
            defer { service.close() }
            try service.export([EchoService.declaration()], at: EchoService.path)
            try service.export(
                [DBusInterface("org.courier.test.Relay1", methods: [
                    DBusMethod("Relay", arguments: "s", results: "s") { call in
                        // Calls back into the same connection (and its own exported object).
                        let r = try await call.connection.call(
                            call.connection.uniqueName, path: EchoService.path, interface: EchoService.interface,
                            method: "Echo", call.arguments)
                        return [.string("relayed " + (r.first?.stringValue ?? ""))]
                    }
                ])], at: "/relay")
            let c = try bus.connect()
            defer { c.close() }
            let r = try await c.call(service.uniqueName, path: "/relay", interface: "org.courier.test.Relay1", method: "Relay", [.string("x")])
            #expect(r == [.string("relayed x")])
        }
    }

    @Test func immediateAndAsyncHandlersAnswerAlike() async throws {
        try await withPrivateBus { bus in
            let service = try bus.connect()
            defer { service.close() }
            let ranInTask = Mutex<[String: Bool]>([:])
            try service.export(
                [DBusInterface("org.courier.test.Modes1", methods: [
                    DBusMethod("Inline", arguments: "s", results: "s", immediate: { call in
                        let inTask = withUnsafeCurrentTask { $0 != nil }
                        ranInTask.withLock { $0["Inline"] = inTask }
                        return [.string("inline " + (call.arguments[0].stringValue ?? ""))]
                    }),
                    DBusMethod("Awaiting", arguments: "s", results: "s", handler: { call in
                        await Task.yield()
                        let inTask = withUnsafeCurrentTask { $0 != nil }
                        ranInTask.withLock { $0["Awaiting"] = inTask }
                        return [.string("awaited " + (call.arguments[0].stringValue ?? ""))]
                    }),
                    DBusMethod("InlineFails", immediate: { _ in throw DBusError(name: "org.courier.test.Error.Nope", message: "no") }),
                    DBusMethod("InlineWrongResult", results: "s", immediate: { _ in [.int32(1)] }),
                    // A closure that never awaits binds to the immediate handler by itself.
                    DBusMethod("Natural", results: "b") { _ in [.boolean(withUnsafeCurrentTask { $0 == nil })] },
                ])], at: "/modes")
            let c = try bus.connect()
            defer { c.close() }
            func call(_ m: MemberName, _ args: [DBusValue] = []) async throws -> [DBusValue] {
                try await c.call(service.uniqueName, path: "/modes", interface: "org.courier.test.Modes1", method: m, args)
            }
            #expect(try await call("Inline", [.string("x")]) == [.string("inline x")])
            #expect(try await call("Awaiting", [.string("y")]) == [.string("awaited y")])
            #expect(ranInTask.withLock { $0 } == ["Inline": false, "Awaiting": true])
            await expectError("org.courier.test.Error.Nope") { _ = try await call("InlineFails") }
            await expectError(DBusError.failedName) { _ = try await call("InlineWrongResult") }
            #expect(try await call("Natural") == [.boolean(true)])
            // A call that asks for no reply still runs the handler, and the service keeps serving.
            try c.callNoReply(service.uniqueName, path: "/modes", interface: "org.courier.test.Modes1", method: "Inline", [.string("z")])
            #expect(try await call("Inline", [.string("w")]) == [.string("inline w")])
        }
    }

    @Test func callTimesOutWithNoReply() async throws {
        try await withPrivateBus { bus in
            let service = try bus.connect()
            defer { service.close() }
            try service.export(
                [DBusInterface("org.courier.test.Slow1", methods: [
                    DBusMethod("Slow") { _ in
                        // Never answers in time: only the caller's timeout can end the call.
                        try await Task.sleep(for: .seconds(60))
                        return []
                    }
                ])], at: "/slow")
            let c = try bus.connect()
            defer { c.close() }
            do {
                _ = try await c.call(service.uniqueName, path: "/slow", interface: "org.courier.test.Slow1", method: "Slow", timeout: .milliseconds(200))
                Issue.record("expected a timeout")
            } catch let e as DBusError {
                #expect(e.name == DBusError.noReplyName)
            }
        }
    }

    @Test func lostBusIsObservableAndFailsCalls() async throws {
        let bus = try PrivateBus()
        let service = try await EchoService.start(on: bus)
        let c = try bus.connect()
        #expect(c.isConnected)
        bus.stop()
        await c.waitUntilDisconnected()
        await service.waitUntilDisconnected()
        #expect(!c.isConnected)
        await expectError(DBusError.disconnectedName) { _ = try await call(c, "Echo", [.string("x")]) }
        c.close()
    }

    @Test func invalidValuesAreRefusedBeforeSending() async throws {
        try await withPrivateBus { bus in
            let c = try bus.connect()
            defer { c.close() }
            await expectError(DBusError.invalidArgsName) { _ = try await call(c, "Echo", [.string("nul\u{0}inside")]) }
            await expectError(DBusError.invalidArgsName) { _ = try await call(c, "Echo", [.array(.string, [.int32(1)])]) }
            await expectError(DBusError.invalidArgsName) {
                _ = try await call(c, "Echo", [.dictionary(key: .variant, value: .string, [])])
            }
            var deep: DBusValue = .int32(1)
            for _ in 0..<40 { deep = .array(deep.type, [deep]) }
            await expectError(DBusError.invalidArgsName) { _ = try await call(c, "Echo", [deep]) }
            #expect(c.isConnected)
        }
    }
}
