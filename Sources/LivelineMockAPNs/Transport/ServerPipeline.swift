import NIOCore
import NIOSSL

/// Builds each accepted connection's pipeline: TLS (optional), then the APNs handler, which
/// does its own HTTP/2 framing.
struct ServerPipeline: Sendable {
    let sslContext: NIOSSLContext?
    let state: MockAPNsState
    let validator: RequestValidator
    let maxConcurrentStreams: Int
    let connections: ConnectionRegistry

    /// Sets up `channel`, or closes it when the registry's connection limit is reached.
    func configure(_ channel: any Channel) -> EventLoopFuture<Void> {
        guard let number = connections.add(channel) else {
            return channel.close()
        }
        return channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            if let sslContext {
                try pipeline.addHandler(NIOSSLServerHandler(context: sslContext))
            }
            try pipeline.addHandler(
                APNsConnectionHandler(
                    state: state, validator: validator, maxConcurrentStreams: maxConcurrentStreams,
                    connectionNumber: number))
        }
    }
}
