import BusTestSupport
import Foundation

/// A private session bus with its own service folder for D-Bus activation (and no system service
/// folders): BusTestSupport's `PrivateBus`, whose activated services inherit `environment` —
/// which is how a test points them at a temporary XDG home.
final class PrivateSessionBus {
    let address: String
    let servicesFolder: String
    private let bus: PrivateBus

    init(folder: String, environment: [String: String]) throws {
        servicesFolder = folder + "/dbus-services"
        try FileManager.default.createDirectory(atPath: servicesFolder, withIntermediateDirectories: true)
        bus = try PrivateBus(servicesDirectory: URL(fileURLWithPath: servicesFolder, isDirectory: true), environment: environment)
        address = bus.address
    }

    /// Installs a D-Bus service file (`[D-BUS Service]`, `Name=`, `Exec=`).
    func installService(name: String, exec: String) throws {
        try "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n"
            .write(toFile: servicesFolder + "/\(name).service", atomically: true, encoding: .utf8)
    }
}
