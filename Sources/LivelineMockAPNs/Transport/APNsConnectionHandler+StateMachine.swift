extension APNsConnectionHandler {
    /// The life of one mock connection as a value: events in (the connection came up, a
    /// request carried a valid token, GOAWAY was asked for, the client broke the protocol, the
    /// channel closed), and out of each what the handler must do. It does no I/O, so every
    /// transition, the unexpected ones too (a GOAWAY asked for before the connection is up, a
    /// protocol error after GOAWAY, a second close), is tested without a socket.
    ///
    /// ```
    /// idle ─opened─▶ open ─GOAWAY─▶ goingAway ─drained─▶ closed
    /// idle ─GOAWAY─▶ closed        (unexpected: closed without a word, never counted)
    /// any state ─protocol error, hang-up, closed─▶ closed   (the end: nothing leaves it)
    /// ```
    ///
    /// The mock counts open connections (``MockAPNsState``): a transition that ends a
    /// connection it counted as opened says so, exactly once. A plain value mutated in place,
    /// read on every request.
    struct StateMachine {
        enum State: Hashable {
            /// The channel is not active yet.
            case idle
            /// Serving requests.
            case open
            /// GOAWAY sent: streams in flight are answered, then the connection closes.
            case goingAway
            /// Closed or closing; nothing more is read or answered. The end state.
            case closed
        }

        private(set) var state = State.idle
        /// Whether the stream limit was raised from 1 (after the first valid token); once.
        private(set) var streamLimitRaised = false

        /// Whether the connection is finished: reads and late answers are dropped.
        var isClosed: Bool { state == .closed }

        /// The channel is active. True when the handler must count the connection and write
        /// the server preface; false when it already did, or the connection is finished.
        mutating func opened() -> Bool {
            guard state == .idle else { return false }
            state = .open
            return true
        }

        /// A request carried the connection's first valid token. True when the handler must
        /// raise the stream limit now (once per connection, GOAWAY or not).
        mutating func validTokenSeen() -> Bool {
            guard !streamLimitRaised, state == .open || state == .goingAway else { return false }
            streamLimitRaised = true
            return true
        }

        /// What the handler does when GOAWAY is asked for (a graceful shutdown, a fault, a
        /// `Shutdown` answer).
        enum GoAwayAction: Hashable {
            /// Send GOAWAY, close once the streams in flight are answered (or after the drain
            /// timeout).
            case sendGoAway
            /// The connection is not up: close it, with nothing to say or drain.
            case close
            /// Nothing: GOAWAY went out already, or the connection is finished.
            case ignore
        }

        mutating func goAway() -> GoAwayAction {
            switch state {
            case .open:
                state = .goingAway
                return .sendGoAway
            case .idle:
                state = .closed
                return .close
            case .goingAway, .closed:
                return .ignore
            }
        }

        /// What the handler does when the connection must end now.
        struct Ending: Hashable {
            /// Send GOAWAY (with the error) first: none went out yet.
            var sendGoAway: Bool
            /// Count the connection closed: it was counted opened and this ends it.
            var countClosed: Bool
        }

        /// The client broke the protocol: GOAWAY with the error (unless one went out), then
        /// close. Nil when the connection is finished already.
        mutating func connectionError() -> Ending? {
            switch state {
            case .open:
                state = .closed
                return Ending(sendGoAway: true, countClosed: true)
            case .goingAway:
                state = .closed
                return Ending(sendGoAway: false, countClosed: true)
            case .idle:
                state = .closed
                return Ending(sendGoAway: false, countClosed: false)
            case .closed:
                return nil
            }
        }

        /// After the connection went away: true when no stream is left, so the handler
        /// counts it closed, writes what it holds and closes.
        mutating func closeIfDrained(openStreams: Int) -> Bool {
            guard state == .goingAway, openStreams == 0 else { return false }
            state = .closed
            return true
        }

        /// The connection ends without a word (not HTTP/2, or a reset fault); also the
        /// channel closing. True when the handler must count it closed.
        mutating func closed() -> Bool {
            let counted = state == .open || state == .goingAway
            state = .closed
            return counted
        }
    }
}
