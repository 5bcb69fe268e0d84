import Testing

@testable import LivelineAPNs

/// The client connection's life, event by event, without a socket: every transition of
/// ``HTTP2ClientHandler/StateMachine``, the ones a well-behaved server never causes too.
@Suite struct HTTP2ClientStateMachineTests {
    typealias Machine = HTTP2ClientHandler.StateMachine
    static let host = "api.push.apple.com:443"
    static let start = ContinuousClock.now

    static func open(tls: Bool = true, handshaken: Bool = true) -> Machine {
        var machine = Machine(host: host, tls: tls, now: start)
        _ = machine.activate()
        if handshaken { machine.handshakeCompleted() }
        return machine
    }

    static let shutdown = APNsTransportError.goingAway(host: host, code: "NO_ERROR", reason: "Shutdown")

    @Test func requestsWaitUntilTheConnectionIsUpWhichHappensOnce() {
        var machine = Machine(host: Self.host, tls: true, now: Self.start)
        #expect(machine.admit(openStreams: 0, othersWaiting: false) == .wait)
        #expect(!machine.mayStart(openStreams: 0))
        let activate = machine.activate()
        #expect(activate)
        #expect(machine.state == .open(handshaken: false))
        #expect(machine.admit(openStreams: 0, othersWaiting: false) == .start)
        #expect(machine.mayStart(openStreams: 0))
        // A second activation (the handler added to an active channel, then told it is active).
        let activate2 = machine.activate()
        #expect(!activate2)
        machine.handshakeCompleted()
        #expect(machine.state == .open(handshaken: true))
    }

    @Test func theServersStreamLimitDecidesAndNoRequestOvertakesOnesThatWait() {
        var machine = Self.open()
        // APNs allows one stream until a request carries a valid token.
        #expect(machine.admit(openStreams: 1, othersWaiting: false) == .wait)
        #expect(machine.admit(openStreams: 0, othersWaiting: true) == .wait)
        let peerSettingsChanged = machine.peerSettingsChanged(maxConcurrentStreams: 1000)
        #expect(peerSettingsChanged == .init(from: 1, to: 1000))
        let peerSettingsChanged2 = machine.peerSettingsChanged(maxConcurrentStreams: 1000)
        #expect(peerSettingsChanged2 == nil)
        #expect(machine.admit(openStreams: 999, othersWaiting: false) == .start)
        #expect(machine.admit(openStreams: 1000, othersWaiting: false) == .wait)
        // No limit is the largest a stream id allows; zero still lets one through.
        let peerSettingsChanged3 = machine.peerSettingsChanged(maxConcurrentStreams: nil)
        #expect(peerSettingsChanged3 == .init(from: 1000, to: Int(Int32.max)))
        let peerSettingsChanged4 = machine.peerSettingsChanged(maxConcurrentStreams: 0)
        #expect(peerSettingsChanged4 == .init(from: Int(Int32.max), to: 1))
    }

    @Test func aGoAwayRetiresTheConnectionOnceAndItClosesWhenDrained() {
        var machine = Self.open()
        let retirement = machine.goAwayReceived(code: "NO_ERROR", debugText: #"{"reason":"Shutdown"}"#)
        #expect(retirement == .init(error: Self.shutdown, reportUnusable: true))
        #expect(machine.admit(openStreams: 0, othersWaiting: false) == .fail(Self.shutdown))
        #expect(!machine.mayStart(openStreams: 0))
        // Answers to the streams it will still process are read.
        #expect(machine.readsFrames)
        // A later GOAWAY says the latest; the pool was told already.
        let calm = APNsTransportError.goingAway(host: Self.host, code: "ENHANCE_YOUR_CALM", reason: "too many")
        let goAwayReceived = machine.goAwayReceived(code: "ENHANCE_YOUR_CALM", debugText: "too many")
        #expect(
            goAwayReceived
                == .init(error: calm, reportUnusable: false))
        let closeIfDrained = machine.closeIfDrained(inFlight: 2)
        #expect(!closeIfDrained)
        let closeIfDrained2 = machine.closeIfDrained(inFlight: 0)
        #expect(closeIfDrained2)
        let closeIfDrained3 = machine.closeIfDrained(inFlight: 0)
        #expect(!closeIfDrained3)
        #expect(!machine.readsFrames)
        // New requests still fail with the GOAWAY (not processed: may go elsewhere); those that
        // were in flight fail with a closed connection that names it.
        #expect(machine.admit(openStreams: 0, othersWaiting: false) == .fail(calm))
        let closedByGoAway = APNsTransportError.connectionClosed(host: Self.host, cause: calm.description)
        let channelClosed = machine.channelClosed()
        #expect(channelClosed == .init(error: closedByGoAway, reportUnusable: false))
        #expect(machine.state == .closed(cause: closedByGoAway, goAway: calm))
        #expect(machine.failure == calm)
    }

    @Test func aGoAwayBeforeTheConnectionIsUpFailsWhatWaitsAndNothingStarts() {
        var machine = Machine(host: Self.host, tls: true, now: Self.start)
        let goAwayReceived = machine.goAwayReceived(code: "NO_ERROR", debugText: nil)
        #expect(goAwayReceived.reportUnusable)
        let activate = machine.activate()
        #expect(!activate)
        #expect(
            machine.admit(openStreams: 0, othersWaiting: false)
                == .fail(.goingAway(host: Self.host, code: "NO_ERROR", reason: nil)))
    }

    @Test func goAwayDebugDataThatIsNotAPNsJSONIsTheReasonAsItIs() {
        var machine = Self.open()
        let goAwayReceived = machine.goAwayReceived(code: "PROTOCOL_ERROR", debugText: "bad frame")
        #expect(
            goAwayReceived.error
                == .goingAway(host: Self.host, code: "PROTOCOL_ERROR", reason: "bad frame"))
        #expect(Machine.reason(inJSON: #"{"reason":"IdleTimeout"}"#) == "IdleTimeout")
        #expect(Machine.reason(inJSON: #"{"other":1}"#) == nil)
    }

    @Test func aTLSErrorDuringTheHandshakeIsATLSFailureAndTheFirstCauseWins() {
        var machine = Self.open(handshaken: false)
        let failed = APNsTransportError.tlsFailed(host: Self.host, cause: "CERTIFICATE_VERIFY_FAILED")
        let errorCaught = machine.errorCaught(.tls(reason: "CERTIFICATE_VERIFY_FAILED", text: "handshake failed: …"))
        #expect(
            errorCaught
                == .close(reportUnusable: true))
        #expect(machine.closeCause == failed)
        // The unclean shutdown that follows an alert changes nothing.
        let errorCaught2 = machine.errorCaught(.other("uncleanShutdown"))
        #expect(errorCaught2 == .close(reportUnusable: false))
        #expect(machine.closeCause == failed)
        #expect(machine.admit(openStreams: 0, othersWaiting: false) == .fail(failed))
        #expect(!machine.readsFrames)
        let channelClosed = machine.channelClosed()
        #expect(channelClosed == .init(error: failed, reportUnusable: false))
        // Closed twice (inactive, then removed from the pipeline); an error after the close.
        let channelClosed2 = machine.channelClosed()
        #expect(channelClosed2 == .init(error: failed, reportUnusable: false))
        let errorCaught3 = machine.errorCaught(.other("late"))
        #expect(errorCaught3 == .ignore)
        #expect(machine.state == .closed(cause: failed, goAway: nil))
    }

    @Test func aTLSErrorAfterTheHandshakeIsAClosedConnectionWithItsText() {
        var machine = Self.open()
        let errorCaught = machine.errorCaught(.tls(reason: "BAD_RECORD_MAC", text: "read failed"))
        #expect(errorCaught == .close(reportUnusable: true))
        #expect(machine.closeCause == .connectionClosed(host: Self.host, cause: "read failed"))
        // Without TLS, a TLS error cannot be the handshake's either.
        var cleartext = Self.open(tls: false, handshaken: false)
        _ = cleartext.errorCaught(.tls(reason: "X", text: "text"))
        #expect(cleartext.closeCause == .connectionClosed(host: Self.host, cause: "text"))
    }

    @Test func anErrorOfOurOwnIsKeptAsItIs() {
        var machine = Self.open(handshaken: false)
        let notHTTP2 = APNsTransportError.notHTTP2(host: Self.host, negotiated: "http/1.1")
        let errorCaught = machine.errorCaught(.transport(notHTTP2))
        #expect(errorCaught == .close(reportUnusable: true))
        let channelClosed = machine.channelClosed()
        #expect(channelClosed.error == notHTTP2)
    }

    @Test func aCloseDuringTheHandshakeSaysSoAndWithoutTLSSaysNothingMore() {
        var machine = Self.open(handshaken: false)
        let channelClosed = machine.channelClosed()
        #expect(
            channelClosed
                == .init(
                    error: .connectionClosed(
                        host: Self.host, cause: "the server closed the connection during the TLS handshake"),
                    reportUnusable: true))
        var cleartext = Self.open(tls: false, handshaken: false)
        let channelClosed2 = cleartext.channelClosed()
        #expect(channelClosed2 == .init(error: .connectionClosed(host: Self.host, cause: nil), reportUnusable: true))
        // Closed before it was ever up (removed from the pipeline).
        var never = Machine(host: Self.host, tls: true, now: Self.start)
        let channelClosed3 = never.channelClosed()
        #expect(channelClosed3.reportUnusable)
        let activate = never.activate()
        #expect(!activate)
    }

    @Test func aHandshakeReportedBeforeActivationIsKept() {
        var machine = Machine(host: Self.host, tls: true, now: Self.start)
        machine.handshakeCompleted()
        let activate = machine.activate()
        #expect(activate)
        #expect(machine.state == .open(handshaken: true))
        let channelClosed = machine.channelClosed()
        #expect(channelClosed.error == .connectionClosed(host: Self.host, cause: nil))
        // After the close, a handshake is news of nothing.
        machine.handshakeCompleted()
        #expect(machine.state == .closed(cause: .connectionClosed(host: Self.host, cause: nil), goAway: nil))
    }

    @Test func aProtocolErrorClosesTheConnectionOnceWithItsDetail() {
        var machine = Self.open()
        let broken = APNsTransportError.protocolError(host: Self.host, detail: "FRAME_SIZE_ERROR: too big")
        let protocolError = machine.protocolError(detail: "FRAME_SIZE_ERROR: too big")
        #expect(
            protocolError
                == .goAwayAndClose(failure: broken, reportUnusable: true))
        let protocolError2 = machine.protocolError(detail: "again")
        #expect(protocolError2 == .ignore)
        #expect(!machine.readsFrames)
        #expect(machine.admit(openStreams: 0, othersWaiting: false) == .fail(broken))
        let channelClosed = machine.channelClosed()
        #expect(channelClosed == .init(error: broken, reportUnusable: false))
        let protocolError3 = machine.protocolError(detail: "after the close")
        #expect(protocolError3 == .ignore)
    }

    @Test func aProtocolErrorAfterAGoAwayFailsInFlightRequestsWithItAndNewOnesWithTheGoAway() {
        var machine = Self.open()
        _ = machine.goAwayReceived(code: "NO_ERROR", debugText: #"{"reason":"Shutdown"}"#)
        let broken = APNsTransportError.protocolError(host: Self.host, detail: "PROTOCOL_ERROR: x")
        let protocolError = machine.protocolError(detail: "PROTOCOL_ERROR: x")
        #expect(
            protocolError == .goAwayAndClose(failure: broken, reportUnusable: false))
        #expect(machine.admit(openStreams: 0, othersWaiting: false) == .fail(Self.shutdown))
        let channelClosed = machine.channelClosed()
        #expect(channelClosed.error == broken)
    }

    @Test func anErrorAfterAGoAwayKeepsTheGoAwayAsTheCause() {
        var machine = Self.open()
        _ = machine.goAwayReceived(code: "NO_ERROR", debugText: #"{"reason":"Shutdown"}"#)
        let errorCaught = machine.errorCaught(.other("connection reset"))
        #expect(errorCaught == .close(reportUnusable: false))
        let channelClosed = machine.channelClosed()
        #expect(
            channelClosed.error == .connectionClosed(host: Self.host, cause: Self.shutdown.description))
        // A GOAWAY once the connection is closing changes its course no more.
        let goAwayReceived = machine.goAwayReceived(code: "NO_ERROR", debugText: nil)
        #expect(
            goAwayReceived
                == .init(error: .goingAway(host: Self.host, code: "NO_ERROR", reason: nil), reportUnusable: false))
        #expect(machine.failure == Self.shutdown)
    }

    @Test func exhaustedStreamIDsRetireTheConnectionLikeAGoAway() {
        var machine = Self.open()
        let exhausted = APNsTransportError.goingAway(host: Self.host, code: "NO_ERROR", reason: "stream ids exhausted")
        let streamIDsExhausted = machine.streamIDsExhausted()
        #expect(streamIDsExhausted == .init(error: exhausted, reportUnusable: true))
        #expect(machine.admit(openStreams: 0, othersWaiting: false) == .fail(exhausted))
        let closeIfDrained = machine.closeIfDrained(inFlight: 0)
        #expect(closeIfDrained)
    }

    @Test func anErrorOrAProtocolErrorBeforeTheConnectionIsUpEndsItBeforeItStarts() {
        var errored = Machine(host: Self.host, tls: true, now: Self.start)
        let errorCaught = errored.errorCaught(.other("connection refused"))
        #expect(errorCaught == .close(reportUnusable: true))
        let refused = APNsTransportError.connectionClosed(host: Self.host, cause: "connection refused")
        #expect(errored.state == .closing(cause: refused, goAway: nil))
        // The channel may still report itself active: the preface is not written.
        let activate = errored.activate()
        #expect(!activate)
        #expect(errored.admit(openStreams: 0, othersWaiting: false) == .fail(refused))
        var broken = Machine(host: Self.host, tls: false, now: Self.start)
        let protocolError = broken.protocolError(detail: "PROTOCOL_ERROR: early")
        let early = APNsTransportError.protocolError(host: Self.host, detail: "PROTOCOL_ERROR: early")
        #expect(protocolError == .goAwayAndClose(failure: early, reportUnusable: true))
        let channelClosed = broken.channelClosed()
        #expect(channelClosed == .init(error: early, reportUnusable: false))
    }

    @Test func onlyAConnectionGoingAwayClosesWhenDrained() {
        var connecting = Machine(host: Self.host, tls: true, now: Self.start)
        let closeIfDrained = connecting.closeIfDrained(inFlight: 0)
        #expect(!closeIfDrained)
        var machine = Self.open()
        let closeIfDrained2 = machine.closeIfDrained(inFlight: 0)
        #expect(!closeIfDrained2)
        #expect(machine.state == .open(handshaken: true))
        var closed = Self.open()
        _ = closed.channelClosed()
        let closeIfDrained3 = closed.closeIfDrained(inFlight: 0)
        #expect(!closeIfDrained3)
        #expect(closed.state == .closed(cause: .connectionClosed(host: Self.host, cause: nil), goAway: nil))
    }

    @Test func aCloseWhileGoingAwayFailsWhatIsInFlightWithTheGoAwayAsItsCause() {
        var machine = Self.open()
        _ = machine.goAwayReceived(code: "NO_ERROR", debugText: #"{"reason":"Shutdown"}"#)
        let closedByGoAway = APNsTransportError.connectionClosed(host: Self.host, cause: Self.shutdown.description)
        #expect(machine.closeCause == closedByGoAway)
        #expect(machine.failure == Self.shutdown)
        // The pool was told at the GOAWAY; not again.
        let channelClosed = machine.channelClosed()
        #expect(channelClosed == .init(error: closedByGoAway, reportUnusable: false))
        #expect(machine.state == .closed(cause: closedByGoAway, goAway: Self.shutdown))
        #expect(!machine.readsFrames)
        let activate = machine.activate()
        #expect(!activate)
        let streamIDsExhausted = machine.streamIDsExhausted()
        #expect(!streamIDsExhausted.reportUnusable)
        #expect(machine.state == .closed(cause: closedByGoAway, goAway: Self.shutdown))
    }

    @Test func theIdlePingGoesOnlyWhileTheConnectionIsUpAndIdle() {
        let interval = Duration.seconds(60)
        var machine = Machine(host: Self.host, tls: false, now: Self.start)
        let pingIfIdle = machine.pingIfIdle(now: Self.start + .seconds(61), interval: interval)
        #expect(!pingIfIdle)
        _ = machine.activate()
        machine.noteActivity(at: Self.start)
        let pingIfIdle2 = machine.pingIfIdle(now: Self.start + .seconds(60), interval: interval)
        #expect(!pingIfIdle2)
        let pingIfIdle3 = machine.pingIfIdle(now: Self.start + .seconds(61), interval: interval)
        #expect(pingIfIdle3)
        // The PING counts as activity.
        let pingIfIdle4 = machine.pingIfIdle(now: Self.start + .seconds(62), interval: interval)
        #expect(!pingIfIdle4)
        machine.noteActivity(at: Self.start + .seconds(100))
        let pingIfIdle5 = machine.pingIfIdle(now: Self.start + .seconds(150), interval: interval)
        #expect(!pingIfIdle5)
        // Going away, it still waits for answers: the PING keeps it honest.
        _ = machine.goAwayReceived(code: "NO_ERROR", debugText: nil)
        let pingIfIdle6 = machine.pingIfIdle(now: Self.start + .seconds(161), interval: interval)
        #expect(pingIfIdle6)
        _ = machine.closeIfDrained(inFlight: 0)
        let pingIfIdle7 = machine.pingIfIdle(now: Self.start + .seconds(300), interval: interval)
        #expect(!pingIfIdle7)
        _ = machine.channelClosed()
        let pingIfIdle8 = machine.pingIfIdle(now: Self.start + .seconds(600), interval: interval)
        #expect(!pingIfIdle8)
    }
}
