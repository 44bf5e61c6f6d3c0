import Foundation

/// A private `dbus-daemon` acting as a session bus, with its own service folder for D-Bus
/// activation (and no system service folders). The activated services inherit `environment`,
/// which is how a test points them at a temporary XDG home.
final class PrivateSessionBus {
    let address: String
    let servicesFolder: String
    private let process: Process

    init(folder: String, environment: [String: String]) throws {
        servicesFolder = folder + "/dbus-services"
        try FileManager.default.createDirectory(atPath: servicesFolder, withIntermediateDirectories: true)
        let configuration = folder + "/session.conf"
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(folder)</listen>
              <servicedir>\(servicesFolder)</servicedir>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(toFile: configuration, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(configuration)", "--nofork", "--print-address=1", "--nopidfile"]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.hasPrefix("unix:") else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "dbus-daemon printed no address"])
        }
    }

    deinit {
        // dbus-daemon ignores SIGTERM here; the services it started leave when the bus goes.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Installs a D-Bus service file (`[D-BUS Service]`, `Name=`, `Exec=`).
    func installService(name: String, exec: String) throws {
        try "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n"
            .write(toFile: servicesFolder + "/\(name).service", atomically: true, encoding: .utf8)
    }
}
