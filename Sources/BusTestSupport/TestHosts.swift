public import Foundation

/// Two test hosts of this project's own: network namespaces joined by a veth pair, made by the
/// test (`ip netns add`, `ip link add … type veth`) and removed after it, with private addresses
/// 10.213.N.1 (host A) and 10.213.N.2 (host B) and a multicast route on the veth, so discovery's
/// multicast crosses from one to the other and goes nowhere else. The namespaces and the veth ends
/// are named with `name` (`nearby` unless told) and a tag of the process's own. Processes enter a host's network
/// namespace only (`nsenter --net`), staying in the test's mount namespace: files, the D-Bus socket
/// (a path) and the mounts are the test's, so a receiver there makes its unnamed files on the very
/// mount the broker links them on. The Nearby tests and `courier-bench nearby` (discovery) use them.
public final class TestHosts: @unchecked Sendable {
    public let a: String
    public let b: String
    public private(set) var addressA: String
    public private(set) var addressB: String
    /// The veth ends, in host A and host B.
    public let vethA: String
    public let vethB: String

    /// The two hosts, or why namespaces cannot be made here (not root, no iproute2).
    public static func make(named name: String = "nearby") async -> Result<TestHosts, TestHostsUnavailable> {
        let tag = "\(getpid() % 100_000)\(UInt8.random(in: 0...99))"
        let hosts = TestHosts(name: name, tag: tag)
        let net = "10.213.\(Int(tag.suffix(2)) ?? 0)"
        let steps: [[String]] = [
            ["netns", "add", hosts.a], ["netns", "add", hosts.b],
            ["link", "add", hosts.vethA, "netns", hosts.a, "type", "veth", "peer", "name", hosts.vethB, "netns", hosts.b],
            ["-n", hosts.a, "addr", "add", "\(net).1/24", "dev", hosts.vethA], ["-n", hosts.b, "addr", "add", "\(net).2/24", "dev", hosts.vethB],
            ["-n", hosts.a, "link", "set", hosts.vethA, "up"], ["-n", hosts.b, "link", "set", hosts.vethB, "up"],
            ["-n", hosts.a, "link", "set", "lo", "up"], ["-n", hosts.b, "link", "set", "lo", "up"],
            ["-n", hosts.a, "route", "add", "224.0.0.0/4", "dev", hosts.vethA], ["-n", hosts.b, "route", "add", "224.0.0.0/4", "dev", hosts.vethB],
        ]
        for step in steps {
            guard let result = try? await BackgroundProcess.run("/bin/ip", step, environment: ProcessInfo.processInfo.environment), result.status == 0 else {
                hosts.remove()
                return .failure(TestHostsUnavailable(reason: "ip \(step.joined(separator: " ")) failed (network namespaces need root and iproute2)"))
            }
        }
        hosts.addressA = "\(net).1"
        hosts.addressB = "\(net).2"
        return .success(hosts)
    }

    private init(name: String, tag: String) {
        a = "courier-\(name)-\(tag)-a"
        b = "courier-\(name)-\(tag)-b"
        vethA = "\(name)A\(tag)"
        vethB = "\(name)B\(tag)"
        addressA = ""
        addressB = ""
    }

    /// `executable arguments` in `namespace`'s network (and nothing else of it), in the background.
    public func start(in namespace: String, _ executable: String, _ arguments: [String], environment: [String: String],
               outputIn folder: URL, name: String) throws -> BackgroundProcess {
        let command = IsolatedLoopback.enter(namespace, executable, arguments)
        return try BackgroundProcess(command.executable, command.arguments, environment: environment, outputIn: folder, name: name)
    }

    /// Removes both namespaces (the veth pair goes with them). Processes still inside keep running
    /// in a namespace nobody can reach: stop them first.
    public func remove() {
        for namespace in [a, b] {
            let child = try? BackgroundProcess("/bin/ip", ["netns", "del", namespace], environment: ProcessInfo.processInfo.environment,
                                               stdoutPath: "/dev/null", stderrPath: "/dev/null")
            while child != nil && child?.exitStatus == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
    }
}

public struct TestHostsUnavailable: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
