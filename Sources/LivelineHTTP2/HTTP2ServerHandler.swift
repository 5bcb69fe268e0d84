import NIOCore

/// NIO's side of a server connection on ``HTTP2ConnectionCore``, the same for every such server
/// (the mock APNs, the mock FCM): the bytes the core writes gathered in ``output`` and flushed
/// once per read, the server preface written when the connection opens, a connection that
/// fails closed. Each server keeps only its own: how it reads requests and answers them.
///
/// **Concurrency.** Loop-bound, as every channel handler: NIO calls it on its event loop only.
package protocol HTTP2ServerHandler: ChannelInboundHandler
where InboundIn == ByteBuffer, OutboundOut == ByteBuffer {
    /// The bytes written and not yet flushed.
    var output: ByteBuffer { get set }
    /// The connection is open (or the handler was added to an open one): write the preface and
    /// SETTINGS into ``output`` and flush. Called once per connection.
    func connectionOpened(context: ChannelHandlerContext)
}

extension HTTP2ServerHandler {
    @inlinable
    package func handlerAdded(context: ChannelHandlerContext) {
        output = context.channel.allocator.buffer(capacity: 4096)
        if context.channel.isActive { connectionOpened(context: context) }
    }

    @inlinable
    package func channelActive(context: ChannelHandlerContext) {
        connectionOpened(context: context)
        context.fireChannelActive()
    }

    @inlinable
    package func channelReadComplete(context: ChannelHandlerContext) {
        flushOutput(context: context)
        context.fireChannelReadComplete()
    }

    @inlinable
    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Writes and flushes what ``output`` holds, leaving it empty.
    @inlinable
    package func flushOutput(context: ChannelHandlerContext) {
        guard output.readableBytes > 0 else { return }
        let bytes = output
        output = context.channel.allocator.buffer(capacity: 4096)
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }

    /// Writes what ``output`` holds (a GOAWAY, the last answers) and closes once it is written.
    @inlinable
    package func closeAfterOutput(context: ChannelHandlerContext) {
        let bytes = output
        output = context.channel.allocator.buffer(capacity: 0)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in channel.close(promise: nil) }
    }
}
