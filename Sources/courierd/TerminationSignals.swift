import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT end courierd the normal way: `action` (closing the bus connection) makes the
/// service's `run` return, so `main` returns and the process exits 0 with its atexit work done —
/// log flushes, and LeakSanitizer's report in a sanitized build (a signal death skips both).
///
/// The signals are set to SIG_IGN and watched with dispatch sources; apps launched later get
/// default dispositions back (`ProcessLauncher` resets every signal in the child).
final class TerminationSignals {
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32] = [SIGTERM, SIGINT], action: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { action(number) }
            source.resume()
            return source
        }
    }

    /// Stops watching (the signals stay ignored: courierd is on its way out).
    func cancel() { sources.forEach { $0.cancel() } }
}
