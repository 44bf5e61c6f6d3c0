public import Foundation

/// The Python peers of the tests, one program a file in `Tests/Fixtures/peers/` (each says what
/// it plays): apps, clients and attackers written with Debian's python3 against the D-Bus or
/// LocalSend contract alone, so that Courier is checked by code that does not share its mistakes.
/// Tests run them by path, with `python`.
public enum PythonPeers {
    /// The interpreter every peer runs under (Debian's, with python3-dbus and python3-gi).
    public static let python = "/usr/bin/python3"

    /// `Tests/Fixtures/peers` of the package this file is built from.
    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/peers", isDirectory: true)

    /// The path of the peer `name` (`fake_app.py`); a name with no file there stops the test run.
    public static func path(_ name: String) -> String {
        let path = folder.appendingPathComponent(name).path
        precondition(FileManager.default.fileExists(atPath: path), "no Python peer \(name) in \(folder.path)")
        return path
    }

    /// A copy of the peer `name` in `destination`, for a peer that must run from there (a sandbox
    /// that shows it only that folder); it must import no other peer.
    public static func copy(_ name: String, to destination: URL) throws -> String {
        let target = destination.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(atPath: path(name), toPath: target.path)
        return target.path
    }
}
