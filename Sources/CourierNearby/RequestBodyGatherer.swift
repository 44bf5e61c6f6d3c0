import CourierInbox
import NIOCore
import NIOHTTP1

/// Gathers a request body's parts into buffers of ``size`` bytes on the event loop, and passes each
/// on when full (and what is left at the request's end). A decrypted body part is a slice of
/// NIOSSL's read buffer: while a part waits for the task that writes it to disk, NIOSSL's next
/// read finds its buffer shared and copies the whole buffer into a fresh one (copy on write, with
/// a page fault for every page of the new memory): a fifth of the receiver's CPU time in the
/// 1 GiB upload of `courier-bench nearby`. Copied here once, the part is released at once and
/// NIOSSL reuses its buffer; it is the receiver's one copy of a body on its way to the disk, and
/// the task writing to disk is woken once per ``size`` bytes instead of once per read. Each buffer's bytes start at an address `StreamingWriter` can hand to the
/// disk directly (4 KiB-aligned), so a full buffer goes from here to the disk with no other copy.
final class RequestBodyGatherer: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// The staging file is written in buffers of this size.
    static let size = 1 << 20
    private var gathered: ByteBuffer?
    /// The body bytes still to come, when the head gave a `content-length`: no buffer larger
    /// than the body is allocated for it.
    private var remaining: Int?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = unwrapInboundIn(data)
        guard case .body(var part) = received else {
            passGathered(context)
            if case .head(let head) = received { remaining = head.headers.first(name: "content-length").flatMap { Int($0) } }
            context.fireChannelRead(data)
            return
        }
        while part.readableBytes > 0 {
            if gathered == nil {
                let capacity = min(Self.size, max(remaining ?? Self.size, part.readableBytes))
                gathered = Self.alignedBuffer(capacity: capacity, allocator: context.channel.allocator)
            }
            var slice = part.readSlice(length: min(part.readableBytes, Self.size - gathered!.readableBytes))!
            remaining = remaining.map { $0 - slice.readableBytes }
            gathered!.writeBuffer(&slice)
            if gathered!.readableBytes == Self.size { passGathered(context) }
        }
    }

    /// An empty buffer for `capacity` bytes whose first byte is at a 4 KiB-aligned address.
    static func alignedBuffer(capacity: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: capacity + StreamingWriter.alignment)
        let padding = buffer.withUnsafeMutableWritableBytes { StreamingWriter.alignedStart(of: $0.baseAddress!) }
        buffer.moveWriterIndex(forwardBy: padding)
        buffer.moveReaderIndex(forwardBy: padding)
        return buffer
    }

    func channelInactive(context: ChannelHandlerContext) {
        gathered = nil
        context.fireChannelInactive()
    }

    private func passGathered(_ context: ChannelHandlerContext) {
        guard let buffer = gathered else { return }
        gathered = nil
        context.fireChannelRead(wrapInboundOut(.body(buffer)))
    }
}
