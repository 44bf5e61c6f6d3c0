// courier-bench-app: the Courier side of `courier-bench startup` — the smallest app on the Courier
// library: `Application.start()` (connect, serve its interfaces, own its bundle id, CheckIn, the
// delegate's launch methods), then exit 0. Linked like the todolist example (Package.swift,
// `nativeToolLinking`), so what it costs is the library's start-up, measured against
// courier-bench-capp, the same steps in bare C libdbus.
import Courier
#if canImport(Glibc)
import Glibc
#endif

struct Delegate: ApplicationDelegate {
    func open(_ url: String, options: OpenURLOptions, application: Application) async -> Bool { true }
}

do {
    try await Application(delegate: Delegate()).start()
    exit(0)
} catch {
    print("courier-bench-app: \(error.message)")
    exit(1)
}
