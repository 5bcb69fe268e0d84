import NIOCore
import NIOHTTP2
import NIOSSL

/// Builds each accepted connection's pipeline: TLS (optional), HTTP/2 framing, the APNs handler.
struct ServerPipeline: Sendable {
    let sslContext: NIOSSLContext?
    let state: MockAPNsState
    let validator: RequestValidator
    let maxConcurrentStreams: Int
    let connections: ConnectionRegistry

    /// APNs advertises one stream until a request carries a valid token (APNS.md §5).
    static let initialSettings = [
        HTTP2Setting(parameter: .maxConcurrentStreams, value: 1),
        HTTP2Setting(parameter: .maxHeaderListSize, value: 16_384),
    ]

    func configure(_ channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let number = connections.add(channel)
            let pipeline = channel.pipeline.syncOperations
            if let sslContext {
                try pipeline.addHandler(NIOSSLServerHandler(context: sslContext))
            }
            // NIO's generic header-block checks are off: RequestValidator checks what APNs
            // checks, and the generic pass measured ~8% of the per-request cost.
            try pipeline.addHandler(NIOHTTP2Handler(
                mode: .server, initialSettings: Self.initialSettings, headerBlockValidation: .disabled,
                contentLengthValidation: .disabled))
            try pipeline.addHandler(APNsConnectionHandler(
                state: state, validator: validator, maxConcurrentStreams: maxConcurrentStreams, connectionNumber: number))
        }
    }
}
