#if canImport(Glibc)
import Glibc
#endif

/// A detached POSIX thread running one closure: the I/O loop of each connection and the accept
/// loop of a server. Not a Swift concurrency thread, because each blocks in `poll` for its
/// lifetime; the closure holds whatever the thread needs alive until it returns.
package enum DetachedThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread; `what` names it in the message if the system refuses one.
    package static func start(_ what: String, _ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { arg in
            Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue().run()
            return nil
        }, box)
        precondition(rc == 0, "cannot start \(what): pthread_create returned \(rc)")
        pthread_detach(tid)
    }
}
