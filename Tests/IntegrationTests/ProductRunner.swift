import Foundation

/// Runs one of the build's executables (`courier`, `courier-tool`, …; or `executable`, a copy of
/// it elsewhere) with stdout and stderr to files; waits without blocking the cooperative pool
/// (bounded: 20 s).
func runProduct(_ name: String, _ arguments: [String], _ environment: [String: String], executable: String? = nil) async throws -> (status: Int32, output: String, error: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-registry-cli-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let out = folder.appendingPathComponent("out").path
    let err = folder.appendingPathComponent("err").path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = [executable ?? Products.path(name)] + arguments
    var cargs = argv.map { strdup($0) } + [nil]
    var cenv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for a in cargs + cenv { free(a) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, argv[0], &actions, nil, &cargs, &cenv)
    guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
    var status: Int32 = 0
    for _ in 0..<2000 {
        if waitpid(pid, &status, WNOHANG) == pid { break }
        try await Task.sleep(for: .milliseconds(10))
    }
    let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    return ((status >> 8) & 0xff, read(out), read(err))
}
