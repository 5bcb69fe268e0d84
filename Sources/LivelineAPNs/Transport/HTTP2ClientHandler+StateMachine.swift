import LivelineCore

extension HTTP2ClientHandler {
    /// The life of one client connection as a value: events in (the channel came up, the TLS
    /// handshake finished, the server said GOAWAY, an error, the channel closed), and out of
    /// each what the handler must do. It does no I/O, so every transition, the unexpected ones
    /// too (a GOAWAY before the connection is up, an error during the TLS handshake, a second
    /// close), is tested without a socket.
    ///
    /// ```
    /// connecting ─activate─▶ open ─GOAWAY, stream ids ran out─▶ goingAway ─drained─▶ closing
    /// connecting ─GOAWAY─▶ goingAway         (unexpected: the preface is then never written)
    /// connecting, open, goingAway ─error, protocol error─▶ closing
    /// any state ─closed─▶ closed             (the end: nothing leaves it)
    /// ```
    ///
    /// It also keeps what decides whether a request may start (the server's stream limit) and
    /// when the connection was last busy (for the idle PING), in the handler's monotonic time
    /// (`ContinuousClock`). A plain value without NIO, mutated in place: no allocation,
    /// existential or closure per event, as it sits on every request's path.
    struct StateMachine {
        enum State: Hashable {
            /// The channel is not active yet: requests wait. (The handshake cannot finish
            /// before the channel is active, but if told so, it is kept.)
            case connecting(handshaken: Bool)
            /// Our preface is written; requests start as the server's stream limit allows.
            /// `handshaken`: the TLS handshake finished (from the start without TLS).
            case open(handshaken: Bool)
            /// The server said GOAWAY, or stream ids ran out: new requests fail with this error,
            /// those in flight may still be answered; the connection closes once they are.
            case goingAway(APNsTransportError)
            /// The connection is closing: requests in flight and new ones fail with `cause`, or
            /// new ones with the GOAWAY that preceded it.
            case closing(cause: APNsTransportError, goAway: APNsTransportError?)
            /// The channel closed. The end state: nothing leaves it.
            case closed(cause: APNsTransportError, goAway: APNsTransportError?)
        }

        private(set) var state: State
        /// `host:port`, for errors.
        let host: String
        let tls: Bool
        /// The server's `SETTINGS_MAX_CONCURRENT_STREAMS`: APNs starts at 1 until a request
        /// carries a valid token.
        private(set) var maxConcurrentStreams = 1
        /// When a frame last went out or came in, for the idle PING.
        private(set) var lastActivity: ContinuousClock.Instant

        init(host: String, tls: Bool, now: ContinuousClock.Instant) {
            self.host = host
            self.tls = tls
            state = .connecting(handshaken: !tls)
            lastActivity = now
        }

        // MARK: Coming up

        /// The channel is active. True when the handler must write the preface and start the
        /// requests that waited; false when it already did, or the connection is ending.
        mutating func activate() -> Bool {
            guard case .connecting(let handshaken) = state else { return false }
            state = .open(handshaken: handshaken)
            return true
        }

        /// The TLS handshake finished.
        mutating func handshakeCompleted() {
            switch state {
            case .connecting: state = .connecting(handshaken: true)
            case .open: state = .open(handshaken: true)
            case .goingAway, .closing, .closed: break
            }
        }

        // MARK: Requests

        /// What to do with a new request.
        enum Admission: Hashable {
            /// Open a stream for it now.
            case start
            /// Queue it until the connection is up or a stream is free.
            case wait
            /// Fail it: the connection is going away or closed.
            case fail(APNsTransportError)
        }

        /// What to do with a new request, given how many streams are open and whether requests
        /// already wait (a new one never overtakes them).
        func admit(openStreams: Int, othersWaiting: Bool) -> Admission {
            switch state {
            case .open:
                openStreams < maxConcurrentStreams && !othersWaiting ? .start : .wait
            case .connecting:
                .wait
            case .goingAway(let error):
                .fail(error)
            case .closing(let cause, let goAway), .closed(let cause, let goAway):
                .fail(goAway ?? cause)
            }
        }

        /// Whether a waiting request may start now.
        func mayStart(openStreams: Int) -> Bool {
            guard case .open = state else { return false }
            return openStreams < maxConcurrentStreams
        }

        /// What a request fails with that finds the connection unable to take it.
        var failure: APNsTransportError {
            switch state {
            case .goingAway(let error): error
            case .closing(let cause, let goAway), .closed(let cause, let goAway): goAway ?? cause
            case .connecting, .open: closeCause
            }
        }

        /// Whether frames that arrive are still handled (not once the connection is closing).
        var readsFrames: Bool {
            switch state {
            case .connecting, .open, .goingAway: true
            case .closing, .closed: false
            }
        }

        // MARK: Server settings

        /// A change of the server's stream limit.
        struct StreamLimitChange: Hashable {
            var from: Int
            var to: Int
        }

        /// The server changed its settings: the stream limit's change, if it changed. No limit
        /// is the most stream ids allow; zero still lets one request through.
        mutating func peerSettingsChanged(maxConcurrentStreams limit: Int?) -> StreamLimitChange? {
            let new = max(1, min(limit ?? Int.max, Int(Int32.max)))
            let old = maxConcurrentStreams
            guard new != old else { return nil }
            maxConcurrentStreams = new
            return StreamLimitChange(from: old, to: new)
        }

        // MARK: Going away

        /// What the handler does when the connection stops taking requests.
        struct Retirement: Hashable {
            /// What the requests the server will not answer (and those queued) fail with.
            var error: APNsTransportError
            /// Tell the pool the connection can take no more requests (once per connection).
            var reportUnusable: Bool
        }

        /// The server said GOAWAY with the error `code` (by name) and `debugText`: requests
        /// after its last stream id, and those queued, fail with it; the rest may still be
        /// answered. The reason is the debug data's JSON `reason` (APNs's), or the whole text.
        mutating func goAwayReceived(code: String, debugText: String?) -> Retirement {
            let reason = debugText.map { Self.reason(inJSON: $0) ?? $0 }
            return goingAway(.goingAway(host: host, code: code, reason: reason))
        }

        /// The `reason` of a JSON text such as APNs's GOAWAY debug data.
        static func reason(inJSON text: String) -> String? {
            guard case .object(let object)? = try? JSONParser.parse(Array(text.utf8)),
                case .string(let reason)? = object["reason"]
            else { return nil }
            return reason
        }

        /// Stream ids ran out (they are 31-bit): the connection retires as if the server had
        /// said GOAWAY `NO_ERROR`.
        mutating func streamIDsExhausted() -> Retirement {
            goingAway(.goingAway(host: host, code: "NO_ERROR", reason: "stream ids exhausted"))
        }

        private mutating func goingAway(_ error: APNsTransportError) -> Retirement {
            switch state {
            case .connecting, .open:
                state = .goingAway(error)
                return Retirement(error: error, reportUnusable: true)
            case .goingAway:
                // A later GOAWAY (a server may send several) says the latest.
                state = .goingAway(error)
                return Retirement(error: error, reportUnusable: false)
            case .closing, .closed:
                // Too late to change course; what it abandoned still failed for its reason.
                return Retirement(error: error, reportUnusable: false)
            }
        }

        /// After a read: true when the connection is going away and nothing is left in flight,
        /// so the handler writes what it holds and closes.
        mutating func closeIfDrained(inFlight: Int) -> Bool {
            guard case .goingAway(let error) = state, inFlight == 0 else { return false }
            state = .closing(cause: Self.closed(after: error, host: host), goAway: error)
            return true
        }

        // MARK: Failing

        /// An error the pipeline reported, sorted by the handler (which knows NIO's types).
        enum CaughtError: Hashable {
            /// One of ours (a refused ALPN, say): kept as it is.
            case transport(APNsTransportError)
            /// From TLS: BoringSSL's reason codes, and the whole text.
            case tls(reason: String, text: String)
            /// Anything else (a reset socket): its text.
            case other(String)
        }

        /// What the handler does about a caught error.
        enum ErrorAction: Hashable {
            /// Close the channel; tell the pool first when `reportUnusable`.
            case close(reportUnusable: Bool)
            /// Nothing: the channel is closed already.
            case ignore
        }

        /// The pipeline caught an error: the connection closes, and its first cause is what its
        /// requests fail with (a TLS alert is usually followed by an unclean shutdown).
        mutating func errorCaught(_ error: CaughtError) -> ErrorAction {
            switch state {
            case .connecting(let handshaken), .open(let handshaken):
                state = .closing(cause: describe(error, handshaken: handshaken), goAway: nil)
                return .close(reportUnusable: true)
            case .goingAway(let goAway):
                state = .closing(cause: Self.closed(after: goAway, host: host), goAway: goAway)
                return .close(reportUnusable: false)
            case .closing:
                return .close(reportUnusable: false)
            case .closed:
                return .ignore
            }
        }

        /// What the handler does after the server broke the protocol.
        enum ProtocolErrorAction: Hashable {
            /// Send GOAWAY with the error, fail every request with `failure`, close.
            case goAwayAndClose(failure: APNsTransportError, reportUnusable: Bool)
            /// Nothing: the connection is closing already.
            case ignore
        }

        /// The server broke HTTP/2 (`detail`: the error code and what it did): the connection
        /// ends with a GOAWAY of our own.
        mutating func protocolError(detail: String) -> ProtocolErrorAction {
            let cause = APNsTransportError.protocolError(host: host, detail: detail)
            let reportUnusable: Bool
            let goAway: APNsTransportError?
            switch state {
            case .connecting, .open:
                (reportUnusable, goAway) = (true, nil)
            case .goingAway(let error):
                (reportUnusable, goAway) = (false, error)
            case .closing, .closed:
                return .ignore
            }
            state = .closing(cause: cause, goAway: goAway)
            return .goAwayAndClose(failure: cause, reportUnusable: reportUnusable)
        }

        /// What the handler does when the channel is gone.
        struct Closing: Hashable {
            /// What every request still waiting fails with.
            var error: APNsTransportError
            /// Tell the pool the connection can take no more requests (once per connection).
            var reportUnusable: Bool
        }

        /// The channel closed (inactive, or the handler left the pipeline): every request
        /// still waiting fails with the first cause known.
        mutating func channelClosed() -> Closing {
            let reportUnusable: Bool
            let goAway: APNsTransportError?
            switch state {
            case .connecting, .open: (reportUnusable, goAway) = (true, nil)
            case .goingAway(let error): (reportUnusable, goAway) = (false, error)
            case .closing(_, let error), .closed(_, let error): (reportUnusable, goAway) = (false, error)
            }
            let cause = closeCause
            state = .closed(cause: cause, goAway: goAway)
            return Closing(error: cause, reportUnusable: reportUnusable)
        }

        /// Why the connection ends (or would, closed now).
        var closeCause: APNsTransportError {
            switch state {
            case .connecting(let handshaken), .open(let handshaken):
                tls && !handshaken
                    ? .connectionClosed(host: host, cause: "the server closed the connection during the TLS handshake")
                    : .connectionClosed(host: host, cause: nil)
            case .goingAway(let error): Self.closed(after: error, host: host)
            case .closing(let cause, _), .closed(let cause, _): cause
            }
        }

        /// A request the server may still have answered fails with the GOAWAY as its cause if
        /// the connection closes first.
        private static func closed(after goAway: APNsTransportError, host: String) -> APNsTransportError {
            .connectionClosed(host: host, cause: goAway.description)
        }

        private func describe(_ error: CaughtError, handshaken: Bool) -> APNsTransportError {
            switch error {
            case .transport(let error): error
            case .tls(let reason, _) where tls && !handshaken: .tlsFailed(host: host, cause: reason)
            case .tls(_, let text), .other(let text): .connectionClosed(host: host, cause: text)
            }
        }

        // MARK: Keepalive

        /// A frame went out or came in.
        mutating func noteActivity(at now: ContinuousClock.Instant) {
            lastActivity = now
        }

        /// True when the connection, up and idle for longer than `interval`, should send a PING
        /// now (which counts as activity).
        mutating func pingIfIdle(now: ContinuousClock.Instant, interval: Duration) -> Bool {
            switch state {
            case .open, .goingAway:
                guard lastActivity.duration(to: now) > interval else { return false }
                lastActivity = now
                return true
            case .connecting, .closing, .closed:
                return false
            }
        }
    }
}
