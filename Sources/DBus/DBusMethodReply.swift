import CDBus
import Synchronization

/// The answer to one call served by a deferred handler (`DBusMethod(…, deferred:)`): the handler
/// returns at once and answers through this object later, from any thread — after a call of its
/// own completes, say — with no task kept waiting in between.
///
/// Answer once: the first `succeed` or `fail` replies and later ones are ignored. A reply that is
/// dropped without an answer replies `org.freedesktop.DBus.Error.Failed` itself, so a caller is
/// never left waiting for its timeout by a handler's bug.
public final class DBusMethodReply: Sendable {
    private enum Sink: Sendable {
        /// The call being served: the reply is checked against `results` and sent on `connection`.
        case bus(connection: DBusConnection, call: MethodCall, member: MemberName, results: Signature, target: ReplyTarget)
        /// A task waiting in `DBusMethod.handler` (a deferred method called as an `async` one).
        case task(CheckedContinuation<[DBusValue], any Error>)
    }

    private let sink: Sink
    private let answered = Atomic(false)

    init(connection: DBusConnection, call: MethodCall, member: MemberName, results: Signature, target: ReplyTarget) {
        sink = .bus(connection: connection, call: call, member: member, results: results, target: target)
    }

    init(_ continuation: CheckedContinuation<[DBusValue], any Error>) {
        sink = .task(continuation)
    }

    deinit {
        if !answered.load(ordering: .acquiring) {
            fail(DBusError.failed("the service dropped this call without answering it (a bug in its handler)"))
        }
    }

    /// Replies with `values`, which must match the method's declared results (otherwise the caller
    /// gets `Failed` naming both signatures, as for a returning handler).
    public func succeed(_ values: [DBusValue]) {
        guard claim() else { return }
        switch sink {
        case .bus(let connection, let call, let member, let results, let target):
            defer { target.release() }
            connection.finishCall(call, member: member, results: results, values: values, reply: target)
        case .task(let continuation):
            continuation.resume(returning: values)
        }
    }

    /// Replies with an error: a `DBusError` keeps its name and message, anything else is `Failed`.
    public func fail(_ error: any Error) {
        guard claim() else { return }
        switch sink {
        case .bus(let connection, let call, _, _, let target):
            defer { target.release() }
            connection.sendError(to: call.message, DBusConnection.dbusError(error))
        case .task(let continuation):
            continuation.resume(throwing: error)
        }
    }

    /// `result`'s values or error.
    public func complete(_ result: Result<[DBusValue], any Error>) {
        switch result {
        case .success(let values): succeed(values)
        case .failure(let error): fail(error)
        }
    }

    private func claim() -> Bool {
        !answered.exchange(true, ordering: .acquiringAndReleasing)
    }
}
