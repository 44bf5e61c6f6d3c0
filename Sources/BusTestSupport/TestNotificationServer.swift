public import Foundation

/// A notification server for tests, the test's own peer: a python-dbus program serving
/// `org.freedesktop.Notifications` (the Desktop Notifications Specification) on the test's
/// private bus, as a desktop's notification daemon does. It records every call as a JSON line —
/// for `Notify` the hints too and, for an `image-path` hint, the size, SHA-256 and (up to 64 KiB) the bytes in hex of the file
/// the URI names, read when the call arrives — and answers each `Notify` after `delay` seconds as the
/// person would: `none` never answers, `dismiss` closes it (reason 2), any other word invokes that
/// action.
public final class TestNotificationServer: Sendable {
    public let process: BackgroundProcess
    public let record: URL

    static let script = #"""
    import hashlib, json, sys, urllib.parse
    import dbus, dbus.service, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    answer, delay, record, capabilities = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4].split(",")
    IFACE = "org.freedesktop.Notifications"
    def log(entry):
        with open(record, "a") as f:
            f.write(json.dumps(entry) + "\n")
    def plain(value):
        if isinstance(value, (dbus.Boolean,)):
            return bool(value)
        if isinstance(value, (dbus.Byte, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64, dbus.Int16, dbus.UInt16)):
            return int(value)
        return str(value)
    class Server(dbus.service.Object):
        last = 41
        @dbus.service.method(IFACE, in_signature="", out_signature="as")
        def GetCapabilities(self):
            return capabilities
        @dbus.service.method(IFACE, in_signature="", out_signature="ssss")
        def GetServerInformation(self):
            return ("courier-test-notifications", "Courier tests", "1", "1.2")
        @dbus.service.method(IFACE, in_signature="susssasa{sv}i", out_signature="u", sender_keyword="sender")
        def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout, sender=None):
            self.last += 1
            nid = self.last
            entry = {"call": "Notify", "id": nid, "sender": str(sender), "app": str(app), "summary": str(summary), "body": str(body),
                     "actions": [str(a) for a in actions], "timeout": int(timeout),
                     "hints": {str(k): plain(v) for k, v in hints.items()}}
            image = entry["hints"].get("image-path", "")
            if image.startswith("file://"):
                try:
                    with open(urllib.parse.unquote(image[len("file://"):]), "rb") as f:
                        data = f.read()
                    entry["image_size"], entry["image_sha256"] = len(data), hashlib.sha256(data).hexdigest()
                    if len(data) <= 65536:
                        entry["image_hex"] = data.hex()
                except OSError as error:
                    entry["image_error"] = str(error)
            log(entry)
            if answer == "dismiss":
                GLib.timeout_add(int(delay * 1000), lambda: self.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(2)) and False)
            elif answer != "none":
                GLib.timeout_add(int(delay * 1000), lambda: self.ActionInvoked(dbus.UInt32(nid), answer) and False)
            return dbus.UInt32(nid)
        @dbus.service.method(IFACE, in_signature="u", out_signature="")
        def CloseNotification(self, nid):
            log({"call": "CloseNotification", "id": int(nid)})
            self.NotificationClosed(nid, dbus.UInt32(3))
        @dbus.service.signal(IFACE, signature="us")
        def ActionInvoked(self, nid, key):
            pass
        @dbus.service.signal(IFACE, signature="uu")
        def NotificationClosed(self, nid, reason):
            pass
    server = Server(dbus.SessionBus(), "/org/freedesktop/Notifications")
    name = dbus.service.BusName(IFACE, dbus.SessionBus(), do_not_queue=True)
    print("ready", flush=True)
    GLib.MainLoop().run()
    """#

    /// Another process of the same user on the bus, forging clicks: `ActionInvoked(id, KEY)` from
    /// the notification server's path and interface, for every id it might have handed out, every
    /// 50 ms. Arguments: seconds, KEY.
    public static let forger = #"""
    import sys, time
    import dbus
    bus = dbus.SessionBus()
    end = time.time() + float(sys.argv[1])
    while time.time() < end:
        for nid in range(1, 100):
            signal = dbus.lowlevel.SignalMessage("/org/freedesktop/Notifications", "org.freedesktop.Notifications", "ActionInvoked")
            signal.append(dbus.UInt32(nid), sys.argv[2], signature="us")
            bus.send_message(signal)
        bus.flush()
        time.sleep(0.05)
    """#

    /// Starts `forger` forging `key` for `seconds` on the bus `environment` names.
    public static func startForger(key: String, seconds: Int, environment: [String: String], folder: URL) throws -> BackgroundProcess {
        let script = folder.appendingPathComponent("forger.py")
        try Data(forger.utf8).write(to: script)
        return try BackgroundProcess("/usr/bin/python3", [script.path, String(seconds), key], environment: environment, outputIn: folder, name: "forger")
    }

    /// Starts the server on the bus `environment` names (`/usr/bin/python3`, Debian's, which has
    /// the `dbus` module) and returns once it owns its name. Its files go in `folder`.
    public init(environment: [String: String], folder: URL, answer: String = "none", delay: Double = 0.3,
                capabilities: [String] = ["actions", "body", "body-images"]) async throws {
        let script = folder.appendingPathComponent("notifications.py")
        try Data(Self.script.utf8).write(to: script)
        record = folder.appendingPathComponent("notifications-\(UUID().uuidString).jsonl")
        process = try BackgroundProcess("/usr/bin/python3", [script.path, answer, String(delay), record.path, capabilities.joined(separator: ",")],
                                        environment: environment, outputIn: folder, name: "notifications-\(UUID().uuidString.prefix(8))")
        for _ in 0..<1000 where !process.output.contains("ready") && process.exitStatus == nil {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard process.output.contains("ready") else {
            process.signal(SIGTERM)
            throw StartFailure(errors: process.errors)
        }
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public let errors: String
        public var description: String { "the test notification server did not start: \(errors)" }
    }

    /// Every call recorded so far, in order.
    public var calls: [[String: Any]] {
        let text = (try? String(contentsOf: record, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The recorded `Notify` calls.
    public var notifications: [[String: Any]] { calls.filter { $0["call"] as? String == "Notify" } }

    /// Whether `CloseNotification` was called for `id`.
    public func wasClosed(_ id: Int) -> Bool {
        calls.contains { $0["call"] as? String == "CloseNotification" && $0["id"] as? Int == id }
    }

    /// The first recorded call `matching`, waiting for it up to `timeout` (polled).
    public func first(within timeout: Duration = .seconds(20), _ matching: ([String: Any]) -> Bool) async -> [String: Any]? {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while clock.now < end {
            if let call = calls.first(where: matching) { return call }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return calls.first(where: matching)
    }

    public func stop() {
        process.signal(SIGTERM)
    }
}
