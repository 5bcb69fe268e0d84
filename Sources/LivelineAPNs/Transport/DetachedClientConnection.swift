import NIOCore

/// The client's side of one connection made without a socket, for feeding it arbitrary server
/// bytes (the fuzzers).
package enum DetachedClientConnection {
    /// The client's HTTP/2 handler speaking cleartext HTTP/2 to `host`, as a pooled connection has it.
    package static func handler(host: String) -> any ChannelHandler {
        HTTP2ClientHandler(
            host: host, authority: host, tls: false, idlePing: .seconds(60), logger: APNsClient.silentLogger,
            onUnusable: {})
    }

    /// Sends `request` through a channel whose pipeline holds ``handler(host:)``, as the pool
    /// does; `completion` is told the answer or the failure.
    package static func send(
        _ request: APNsRequest, on channel: any Channel,
        completion: @escaping @Sendable (Result<APNsResponse, any Error>) -> Void
    ) {
        let pending = PendingRequest(
            request: request, token: nil, completion: completion, deadline: .now() + .seconds(10))
        channel.writeAndFlush(pending, promise: nil)
    }
}
