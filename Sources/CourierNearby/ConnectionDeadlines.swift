import NIOCore
import NIOHTTP1
import NIOTLS

/// Short deadlines for the start of every request, so that connections that never get going
/// (half a TLS handshake, half a request head) cannot hold the receiver's slots for the whole idle
/// timeout: the TLS handshake must be done within `handshake` of the connection's start, and each
/// request head must have arrived within `head` of the connection's start or of the previous
/// answer. Once a head is in, the idle timeout alone bounds the request (a large upload may take
/// long; a silent one is closed).
final class ConnectionDeadlines: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let handshake: TimeAmount
    private let head: TimeAmount
    private var handshakeTimer: Scheduled<Void>?
    private var headTimer: Scheduled<Void>?
    private var started = false

    init(handshake: TimeAmount, head: TimeAmount) {
        self.handshake = handshake
        self.head = head
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelAll()
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelAll()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            headTimer?.cancel()
            headTimer = nil
            handshakeTimer?.cancel()
            handshakeTimer = nil
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            handshakeTimer?.cancel()
            handshakeTimer = nil
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { armHead(context) }
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        let channel = context.channel
        handshakeTimer = context.eventLoop.scheduleTask(in: handshake) { channel.close(promise: nil) }
        armHead(context)
    }

    private func armHead(_ context: ChannelHandlerContext) {
        headTimer?.cancel()
        let channel = context.channel
        headTimer = context.eventLoop.scheduleTask(in: head) { channel.close(promise: nil) }
    }

    private func cancelAll() {
        handshakeTimer?.cancel()
        headTimer?.cancel()
        handshakeTimer = nil
        headTimer = nil
    }
}
