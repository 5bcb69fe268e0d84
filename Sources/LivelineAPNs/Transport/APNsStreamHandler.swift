import Liveline
import NIOCore
import NIOHPACK
import NIOHTTP2

/// A request handed to a connection, with the promise its response completes.
struct PendingRequest {
    var request: APNsRequest
    var authorization: String?
    var promise: EventLoopPromise<APNsResponse>
    /// When to give up waiting, in NIO uptime nanoseconds.
    var deadline: NIODeadline
}

/// Why a request failed without an HTTP answer.
public enum APNsTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection could not be made.
    case connectFailed(String)
    /// The server closed the connection (or it broke) before answering; it may or may not have
    /// processed the request.
    case connectionClosed
    /// The server sent GOAWAY: this request was not processed and may be retried elsewhere.
    case goingAway(reason: String?)
    /// The server reset the stream.
    case streamReset(String)
    /// No answer in time.
    case timedOut
    /// TLS came up without HTTP/2 (ALPN did not pick h2).
    case notHTTP2

    public var description: String {
        switch self {
        case .connectFailed(let why): "cannot connect: \(why)"
        case .connectionClosed: "the connection closed before APNs answered"
        case .goingAway(let reason): "APNs is closing the connection (GOAWAY\(reason.map { ": \($0)" } ?? ""))"
        case .streamReset(let code): "APNs reset the stream (\(code))"
        case .timedOut: "APNs did not answer in time"
        case .notHTTP2: "the server did not agree to HTTP/2 (ALPN h2)"
        }
    }

    /// Whether the request may be sent again.
    public var isRetryable: Bool { self != .notHTTP2 }
}

/// Sends APNs requests on one HTTP/2 connection, frame by frame, and matches the answers.
///
/// It sits after `NIOHTTP2Handler` running without a stream multiplexer: a child channel per
/// stream costs more than the request itself at APNs rates. The handler opens a stream per
/// request (HEADERS, then DATA with END_STREAM), collects the answer's HEADERS and DATA, and
/// completes the request's promise. It keeps to the peer's `SETTINGS_MAX_CONCURRENT_STREAMS`
/// (queueing the rest), stops opening streams after GOAWAY (failing unprocessed requests so they
/// can go elsewhere), returns flow-control credit, PINGs when idle, and times requests out.
///
/// **Concurrency.** Loop-bound: NIO calls it only on its channel's event loop, so its state
/// needs no lock. Other threads reach it by writing a `PendingRequest` to the channel.
final class APNsStreamHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = PendingRequest
    typealias OutboundOut = HTTP2Frame

    private struct InFlight {
        var pending: PendingRequest
        var status = 0
        var headers = HPACKHeaders()
        var body: ByteBuffer?
    }

    /// The connection window the client offers; credit goes back when half is used.
    static let connectionWindow = 1 << 20

    private let authority: String
    private let scheme: String
    private var nextStreamID = HTTP2StreamID(1)
    private var inFlight: [HTTP2StreamID: InFlight] = [:]
    private var queued = CircularBuffer<PendingRequest>()
    /// The peer's limit. APNs starts at 1 until a request carries a valid token.
    private(set) var maxConcurrentStreams = 1
    private var goAway: (lastStreamID: HTTP2StreamID, reason: String?)?
    /// Whether the connection is up and NIOHTTP2Handler has sent our preface. The connect
    /// future completes before `channelActive` has gone down the pipeline, so a request can
    /// arrive first; it waits in the queue.
    private var active = false
    private var consumedWindow = 0
    private var sweep: RepeatedTask?
    private var lastActivity = NIODeadline.now()
    private let idlePing: TimeAmount
    /// Told when the connection can take no more requests (GOAWAY or closed), once.
    private let onUnusable: @Sendable () -> Void
    private var reportedUnusable = false
    /// Requests on this connection so far, for stream-id exhaustion.
    private var opened = 0

    init(authority: String, tls: Bool, idlePing: TimeAmount, onUnusable: @escaping @Sendable () -> Void) {
        self.authority = authority
        self.scheme = tls ? "https" : "http"
        self.idlePing = idlePing
        self.onUnusable = onUnusable
    }

    /// Requests sent and not yet answered, plus those waiting for a stream.
    var load: Int { inFlight.count + queued.count }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let contextBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        sweep = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { _ in
            loopBound.value.sweepTimeouts(context: contextBound.value)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        sweep?.cancel()
        failAll(APNsTransportError.connectionClosed)
    }

    func channelActive(context: ChannelHandlerContext) {
        active = true
        let increment = Self.connectionWindow - 65_535
        context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
        startQueued(context: context)
        context.flush()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(APNsTransportError.connectionClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A protocol or TLS error ends the connection; the requests on it fail as closed.
        context.close(promise: nil)
    }

    // MARK: Sending

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let pending = unwrapOutboundIn(data)
        promise?.succeed()
        if let goAway {
            pending.promise.fail(APNsTransportError.goingAway(reason: goAway.reason))
            return
        }
        if active, inFlight.count < maxConcurrentStreams, queued.isEmpty {
            start(pending, context: context)
        } else {
            queued.append(pending)
        }
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
    }

    private func start(_ pending: PendingRequest, context: ChannelHandlerContext) {
        let streamID = nextStreamID
        // Stream ids are 31-bit; long before they run out, retire the connection.
        guard opened < 1_000_000_000 else {
            pending.promise.fail(APNsTransportError.goingAway(reason: "stream ids exhausted"))
            markUnusable()
            return
        }
        nextStreamID = HTTP2StreamID(Int32(streamID) + 2)
        opened += 1
        lastActivity = .now()
        var headers = HPACKHeaders()
        headers.reserveCapacity(8 + pending.request.headers.count)
        headers.add(name: ":method", value: pending.request.method.rawValue)
        headers.add(name: ":scheme", value: scheme)
        headers.add(name: ":path", value: pending.request.path)
        headers.add(name: ":authority", value: authority)
        if let authorization = pending.authorization {
            headers.add(name: "authorization", value: "bearer " + authorization, indexing: .neverIndexed)
        }
        for field in pending.request.headers {
            headers.add(name: field.name, value: field.value)
        }
        inFlight[streamID] = InFlight(pending: pending)
        if let body = pending.request.body, body.readableBytes > 0 {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: false)))), promise: nil)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: nil)
        } else {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: true)))), promise: nil)
        }
    }

    private func startQueued(context: ChannelHandlerContext) {
        var started = false
        while active, inFlight.count < maxConcurrentStreams, goAway == nil, let next = queued.popFirst() {
            start(next, context: context)
            started = true
        }
        if started { context.flush() }
    }

    // MARK: Receiving

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        lastActivity = .now()
        switch frame.payload {
        case .headers(let headers):
            guard var stream = inFlight[frame.streamID] else { return }
            if let status = headers.headers.first(name: ":status").flatMap({ Int($0) }) {
                stream.status = status
                stream.headers = headers.headers
            }
            if headers.endStream {
                inFlight[frame.streamID] = nil
                complete(stream)
                startQueued(context: context)
            } else {
                inFlight[frame.streamID] = stream
            }
        case .data(let data):
            if case .byteBuffer(var bytes) = data.data {
                consumedWindow += bytes.readableBytes
                if consumedWindow >= Self.connectionWindow / 2 {
                    context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: consumedWindow))), promise: nil)
                    consumedWindow = 0
                }
                if var stream = inFlight[frame.streamID] {
                    if stream.body == nil {
                        stream.body = bytes
                    } else {
                        stream.body?.writeBuffer(&bytes)
                    }
                    inFlight[frame.streamID] = stream
                }
            }
            if data.endStream, let stream = inFlight.removeValue(forKey: frame.streamID) {
                complete(stream)
                startQueued(context: context)
            }
        case .rstStream(let code):
            if let stream = inFlight.removeValue(forKey: frame.streamID) {
                stream.pending.promise.fail(APNsTransportError.streamReset(String(describing: code)))
                startQueued(context: context)
            }
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                maxConcurrentStreams = max(1, setting.value)
            }
            startQueued(context: context)
        case .goAway(let lastStreamID, _, let opaqueData):
            let reason = opaqueData.flatMap { Self.reason(inJSON: $0) }
            goAway = (lastStreamID, reason)
            markUnusable()
            // Streams the server never processed can go elsewhere; the others will still answer.
            for (id, stream) in inFlight where id > lastStreamID {
                inFlight[id] = nil
                stream.pending.promise.fail(APNsTransportError.goingAway(reason: reason))
            }
            while let next = queued.popFirst() { next.promise.fail(APNsTransportError.goingAway(reason: reason)) }
            if inFlight.isEmpty { context.close(promise: nil) }
        default:
            break
        }
        if goAway != nil, inFlight.isEmpty, queued.isEmpty { context.close(promise: nil) }
    }

    private func complete(_ stream: InFlight) {
        var response = APNsResponse(status: stream.status)
        response.apnsID = stream.headers.first(name: "apns-id")
        response.uniqueID = stream.headers.first(name: "apns-unique-id")
        response.channelID = stream.headers.first(name: "apns-channel-id")
        response.requestID = stream.headers.first(name: "apns-request-id")
        if let body = stream.body, body.readableBytes > 0 {
            let bytes = Array(body.readableBytesView)
            response.body = bytes
            if !response.isSuccess, case .object(let object)? = try? JSONParser.parse(bytes) {
                if case .string(let reason)? = object["reason"] { response.reason = APNsReason(rawValue: reason) }
                if case .int(let timestamp)? = object["timestamp"] { response.timestamp = Int64(timestamp) }
            }
        }
        stream.pending.promise.succeed(response)
    }

    static func reason(inJSON buffer: ByteBuffer) -> String? {
        guard case .object(let object)? = try? JSONParser.parse(Array(buffer.readableBytesView)),
              case .string(let reason)? = object["reason"] else { return nil }
        return reason
    }

    // MARK: Housekeeping

    private func sweepTimeouts(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        for (id, stream) in inFlight where stream.pending.deadline < now {
            inFlight[id] = nil
            stream.pending.promise.fail(APNsTransportError.timedOut)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.cancel))), promise: nil)
        }
        var kept = CircularBuffer<PendingRequest>()
        while let next = queued.popFirst() {
            if next.deadline < now { next.promise.fail(APNsTransportError.timedOut) } else { kept.append(next) }
        }
        queued = kept
        if now - lastActivity > idlePing {
            lastActivity = now
            context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: UInt64(now.uptimeNanoseconds)), ack: false))), promise: nil)
        }
        context.flush()
        startQueued(context: context)
    }

    private func markUnusable() {
        guard !reportedUnusable else { return }
        reportedUnusable = true
        onUnusable()
    }

    private func failAll(_ error: APNsTransportError) {
        markUnusable()
        let streams = inFlight
        inFlight = [:]
        for stream in streams.values { stream.pending.promise.fail(error) }
        while let next = queued.popFirst() { next.promise.fail(error) }
    }
}
