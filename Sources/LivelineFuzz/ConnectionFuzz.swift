import LivelineAPNs
import LivelineMockAPNs
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded

extension FuzzTarget {
    /// The mock's connection handler, as accepted by a server: the client preface is given,
    /// then the input as the rest of the client's bytes, in pieces.
    static let mockConnection = FuzzTarget(
        name: "mock-connection", summary: "the mock APNs connection handler, bytes after the preface"
    ) { bytes in
        var configuration = MockAPNsConfiguration()
        configuration.transport = .h2c
        configuration.historyPerToken = 4
        let channel = EmbeddedChannel(handler: MockAPNsServer.detachedConnectionHandler(configuration))
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        guard (try? channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()) != nil else {
            return false
        }
        return feed(channel, preface: clientPreface, bytes)
    }

    /// The client's connection handler with two requests in flight, fed the input as the server's bytes.
    static let clientConnection = FuzzTarget(
        name: "client-connection", summary: "the APNs client's connection handler, server bytes with two requests open"
    ) { bytes in
        let channel = EmbeddedChannel(handler: DetachedClientConnection.handler(host: "127.0.0.1:1"))
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        guard (try? channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()) != nil else {
            return false
        }
        let answered = NIOLockedValueBox(0)
        for token in ["aa", "bb"] {
            let request = APNsRequest(
                path: "/3/device/\(token)", headers: [("apns-topic", "com.example.fuzz.push-type.liveactivity")],
                body: ByteBuffer(string: #"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#))
            DetachedClientConnection.send(request, on: channel) { result in
                if case .success = result { answered.withLockedValue { $0 += 1 } }
            }
        }
        _ = feed(channel, preface: [], bytes)
        return answered.withLockedValue { $0 } > 0
    }

    private static let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// Writes `preface` then `bytes` into the channel in pieces (sizes from the input), reading
    /// away what the handler writes, until the channel closes or the input ends. True when the
    /// input ended with the connection still open.
    private static func feed(_ channel: EmbeddedChannel, preface: [UInt8], _ bytes: UnsafeRawBufferPointer) -> Bool {
        if !preface.isEmpty {
            guard (try? channel.writeInbound(ByteBuffer(bytes: preface))) != nil else { return false }
        }
        var offset = 0
        while offset < bytes.count, channel.isActive {
            let size = 1 + Int(bytes[offset]) % 128
            let end = min(bytes.count, offset + 1 + size)
            guard offset + 1 < end else { break }
            let piece = ByteBuffer(bytes: bytes[(offset + 1)..<end])
            offset = end
            guard (try? channel.writeInbound(piece)) != nil else { return false }
            while (try? channel.readOutbound(as: ByteBuffer.self)) != nil {}
            channel.embeddedEventLoop.run()
        }
        return channel.isActive
    }
}
