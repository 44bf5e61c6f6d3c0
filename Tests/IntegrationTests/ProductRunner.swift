import BusTestSupport
import Foundation

/// Runs one of the build's executables (`courier`, `courier-tool`, …; or `executable`, a copy of
/// it elsewhere) with stdout and stderr to files, through `BackgroundProcess`; waits without
/// blocking the cooperative pool, at most 20 s (then it is killed: status 137).
func runProduct(_ name: String, _ arguments: [String], _ environment: [String: String], executable: String? = nil) async throws -> (status: Int32, output: String, error: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-registry-cli-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let child = try BackgroundProcess(executable ?? Products.path(name), arguments, environment: environment, outputIn: folder, name: name)
    if await child.wait(timeout: .seconds(20)) == nil { child.kill() }
    let status = await child.wait()
    return (status, child.output, child.errors)
}
