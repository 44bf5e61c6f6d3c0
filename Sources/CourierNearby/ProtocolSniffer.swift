import NIOCore
import NIOSSL
import Synchronization

/// What is known of one connection from its start — the peer's address, and whether the sniffer
/// found TLS — kept apart from the channel, whose pipeline and addresses are gone once the peer
/// closes, possibly before its request is handled.
final class ConnectionFacts: Sendable {
    let address: String
    private let tls = Mutex<Bool>(false)

    init(address: String) {
        self.address = address
    }

    var isTLS: Bool { tls.withLock { $0 } }
    func setTLS() { tls.withLock { $0 = true } }
}

/// The first handler of every connection to the HTTPS port: a TLS client starts with a handshake
/// record (0x16); anything else is taken for plain HTTP. TLS gets `NIOSSLServerHandler` after this
/// handler; plain HTTP gets none, so the HTTP decoder reads the request and the server answers it
/// with a 400 that says to use https:// (as nginx does), instead of a TLS alert the user cannot
/// read. Either way this handler then removes itself.
final class ProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let makeTLSHandler: () -> NIOSSLServerHandler
    private let facts: ConnectionFacts

    init(facts: ConnectionFacts, makeTLSHandler: @escaping () -> NIOSSLServerHandler) {
        self.facts = facts
        self.makeTLSHandler = makeTLSHandler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if buffer.readableBytesView.first == 0x16 {
            do {
                try context.pipeline.syncOperations.addHandler(makeTLSHandler(), position: .after(self))
                facts.setTLS()
            } catch {
                context.fireErrorCaught(error)
                context.close(promise: nil)
                return
            }
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// Closes a connection that has been silent for the idle timeout (slowloris, a stalled upload).
final class IdleConnectionCloser: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
