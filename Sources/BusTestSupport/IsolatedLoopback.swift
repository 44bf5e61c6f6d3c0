import Foundation

/// A network namespace of the test's own with nothing but its loopback: there a receiver may take
/// LocalSend's fixed port 53317 (as the README's commands do) without colliding with the tests
/// running beside it, and a benchmark's servers and LocalSend peers (which announce by multicast)
/// reach nothing but each other. Processes enter its network namespace only (`nsenter --net`, not
/// `ip netns exec`, which also gives them a mount namespace of their own): the D-Bus socket (a
/// path), files and mounts are shared with the caller, so an unnamed file a receiver makes in an
/// Inbox is on the mount the broker links it on, and is linked rather than copied. Where namespaces cannot be made (not root, no iproute2),
/// ``make()`` returns nil and callers use the host's loopback instead.
public final class IsolatedLoopback: Sendable {
    public let name: String

    private init(name: String) { self.name = name }

    public static func make() async -> IsolatedLoopback? {
        let host = IsolatedLoopback(name: "courier-nearby-lo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        for step in [["netns", "add", host.name], ["-n", host.name, "link", "set", "lo", "up"]] {
            guard let result = try? await BackgroundProcess.run("/bin/ip", step, environment: ProcessInfo.processInfo.environment), result.status == 0 else {
                host.remove()
                return nil
            }
        }
        return host
    }

    /// `executable arguments` as run inside the namespace.
    public func command(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        Self.enter(name, executable, arguments)
    }

    /// `executable arguments` as run in the network namespace `namespace` (made by `ip netns add`),
    /// in the caller's mount namespace.
    public static func enter(_ namespace: String, _ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        ("/usr/bin/nsenter", ["--net=/run/netns/\(namespace)", "--", executable] + arguments)
    }

    /// Removes the namespace (stop the processes inside first).
    public func remove() {
        let child = try? BackgroundProcess("/bin/ip", ["netns", "del", name], environment: ProcessInfo.processInfo.environment,
                                           stdoutPath: "/dev/null", stderrPath: "/dev/null")
        while child != nil && child?.exitStatus == nil { Thread.sleep(forTimeInterval: 0.01) }
    }
}

extension Optional where Wrapped == IsolatedLoopback {
    /// Inside the namespace when there is one, else as it is (on the host's loopback).
    public func command(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        self?.command(executable, arguments) ?? (executable, arguments)
    }
}
