import NIOCore
import NIOHTTP1
import NIOPosix

/// The mock's small HTTP/1.1 listeners (the inspection API, the dashboard) on its event loops:
/// one bootstrap and one pipeline, NIO's HTTP/1.1 server codec with its error handling, then a
/// handler of the caller's per connection.
enum HTTP1Server {
    /// Binds `host:port` on `group`; `options` adds the caller's channel options, and each
    /// connection gets `makeHandler()`'s handler (made on the connection's loop).
    static func bind(
        host: String, port: Int, group: any EventLoopGroup,
        options: (ServerBootstrap) -> ServerBootstrap = { $0 },
        makeHandler: @escaping @Sendable () -> any ChannelHandler
    ) async throws -> any Channel {
        try await options(ServerBootstrap(group: group).serverChannelOption(.socketOption(.so_reuseaddr), value: 1))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(makeHandler())
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}
