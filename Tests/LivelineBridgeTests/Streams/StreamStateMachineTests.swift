import Liveline
import Testing

@testable import LivelineBridge

/// A stream's answer and its reconnecting, event by event, without a socket: every transition
/// of ``StreamReadStateMachine`` (a server that misbehaves too) and ``StreamReconnection``.
@Suite struct StreamStateMachineTests {
    static let url: FeedURL = {
        guard let url = try? FeedURL(parsing: "https://feed.example/soccer?api_key=secret") else {
            preconditionFailure("a valid URL")
        }
        return url
    }()

    static func machine() -> StreamReadStateMachine {
        StreamReadStateMachine(url: url, heartbeatTimeout: 30_000)
    }

    @Test func a200IsTheStreamAndItsEndEndsItOnce() {
        var machine = Self.machine()
        let receivedHead = machine.receivedHead(status: 100)
        #expect(receivedHead == .ignore)
        #expect(machine.state == .waiting)
        let receivedHead2 = machine.receivedHead(status: 200)
        #expect(receivedHead2 == .streaming)
        let receivedBody = machine.receivedBody([1, 2, 3])
        #expect(receivedBody)
        // A second head is not the stream's.
        let receivedHead3 = machine.receivedHead(status: 500)
        #expect(receivedHead3 == .ignore)
        #expect(machine.state == .streaming)
        let receivedEnd = machine.receivedEnd()
        #expect(receivedEnd == .init(error: .ended(url: Self.url), failOpener: false))
        let receivedEnd2 = machine.receivedEnd()
        #expect(receivedEnd2 == nil)
        let channelClosed = machine.channelClosed()
        #expect(channelClosed == nil)
        let errorCaught = machine.errorCaught(tls: false, cause: "reset")
        #expect(errorCaught == nil)
        let receivedBody2 = machine.receivedBody([4])
        #expect(!receivedBody2)
    }

    @Test func aRefusalKeepsTheStartOfItsBodyForTheError() {
        var machine = Self.machine()
        let receivedHead = machine.receivedHead(status: 401)
        #expect(receivedHead == .ignore)
        let receivedBody = machine.receivedBody(Array("Invalid\nAPI key ".utf8))
        #expect(!receivedBody)
        let receivedBody2 = machine.receivedBody(Array(repeating: UInt8(ascii: "x"), count: 600))
        #expect(!receivedBody2)
        guard case .refused(401, let body) = machine.state else {
            Issue.record("not refused: \(machine.state)")
            return
        }
        #expect(body.count == StreamReadStateMachine.refusalBodyLimit)
        let finish = machine.receivedEnd()
        guard case .httpStatus(_, 401, let summary) = finish?.error else {
            Issue.record("not the refusal: \(String(describing: finish))")
            return
        }
        #expect(summary.hasPrefix("Invalid API key xxx"))
        #expect(summary.hasSuffix("…"))
        #expect(finish?.failOpener == true)
        let channelClosed = machine.channelClosed()
        #expect(channelClosed == nil)
    }

    @Test func whateverEndsARefusalTheErrorIsItsStatus() {
        let refusal = StreamError.httpStatus(url: Self.url, status: 503, body: "busy")
        var errored = Self.machine()
        _ = errored.receivedHead(status: 503)
        _ = errored.receivedBody(Array("busy".utf8))
        let errorCaught = errored.errorCaught(tls: true, cause: "alert")
        #expect(errorCaught == .init(error: refusal, failOpener: true))
        var closed = Self.machine()
        _ = closed.receivedHead(status: 503)
        _ = closed.receivedBody(Array("busy".utf8))
        let channelClosed = closed.channelClosed()
        #expect(channelClosed == .init(error: refusal, failOpener: true))
        var silent = Self.machine()
        _ = silent.receivedHead(status: 503)
        let heartbeatTimedOut = silent.heartbeatTimedOut()
        #expect(heartbeatTimedOut == .init(error: .heartbeatTimeout(url: Self.url, after: 30_000), failOpener: true))
    }

    @Test func silenceAndErrorsEndTheStreamAndTellTheOpenerOnlyIfItWaits() {
        var waiting = Self.machine()
        let heartbeatTimedOut = waiting.heartbeatTimedOut()
        #expect(
            heartbeatTimedOut == .init(error: .heartbeatTimeout(url: Self.url, after: 30_000), failOpener: true))
        var streaming = Self.machine()
        _ = streaming.receivedHead(status: 200)
        let heartbeatTimedOut2 = streaming.heartbeatTimedOut()
        #expect(
            heartbeatTimedOut2
                == .init(error: .heartbeatTimeout(url: Self.url, after: 30_000), failOpener: false))
        let heartbeatTimedOut3 = streaming.heartbeatTimedOut()
        #expect(heartbeatTimedOut3 == nil)
        var tls = Self.machine()
        let errorCaught = tls.errorCaught(tls: true, cause: "certificate verify failed")
        #expect(
            errorCaught
                == .init(error: .tlsFailed(url: Self.url, cause: "certificate verify failed"), failOpener: true))
        var reset = Self.machine()
        _ = reset.receivedHead(status: 200)
        let errorCaught2 = reset.errorCaught(tls: false, cause: "connection reset by the server")
        #expect(
            errorCaught2
                == .init(error: .closed(url: Self.url, cause: "connection reset by the server"), failOpener: false))
        var hungUp = Self.machine()
        let channelClosed = hungUp.channelClosed()
        #expect(channelClosed == .init(error: .closed(url: Self.url, cause: nil), failOpener: true))
    }

    @Test func aHeadAfterARefusalOrTheEndChangesNothing() {
        var refused = Self.machine()
        _ = refused.receivedHead(status: 429)
        let receivedHead = refused.receivedHead(status: 200)
        #expect(receivedHead == .ignore)
        #expect(refused.state == .refused(status: 429, body: []))
        var ended = Self.machine()
        _ = ended.channelClosed()
        let receivedHead2 = ended.receivedHead(status: 200)
        #expect(receivedHead2 == .ignore)
        #expect(ended.state == .done)
    }

    @Test func aStreamWhoseConnectionClosesEndsWithoutACause() {
        var machine = Self.machine()
        _ = machine.receivedHead(status: 200)
        let channelClosed = machine.channelClosed()
        #expect(channelClosed == .init(error: .closed(url: Self.url, cause: nil), failOpener: false))
        let heartbeatTimedOut = machine.heartbeatTimedOut()
        #expect(heartbeatTimedOut == nil)
    }

    @Test func aBodyOrAnEndBeforeAnyHeadIsIgnored() {
        var machine = Self.machine()
        let receivedBody = machine.receivedBody([1])
        #expect(!receivedBody)
        let receivedEnd = machine.receivedEnd()
        #expect(receivedEnd == nil)
        #expect(machine.state == .waiting)
    }

    @Test func theWaitDoublesWhileConnectionsFailAndStartsOverAfterOneThatCarriedData() {
        var reconnection = StreamReconnection(
            backoff: ReconnectBackoff(initial: .seconds(1), maximum: .seconds(5)), recovers: true, startsWithGap: false)
        #expect(!reconnection.recoversGap)
        let connectionEnded = reconnection.connectionEnded(carriedData: false, unit: 1)
        #expect(connectionEnded == 1000)
        #expect(reconnection.recoversGap)
        let connectionEnded2 = reconnection.connectionEnded(carriedData: false, unit: 1)
        #expect(connectionEnded2 == 2000)
        let connectionEnded3 = reconnection.connectionEnded(carriedData: false, unit: 1)
        #expect(connectionEnded3 == 4000)
        let connectionEnded4 = reconnection.connectionEnded(carriedData: false, unit: 1)
        #expect(connectionEnded4 == 5000)
        let connectionEnded5 = reconnection.connectionEnded(carriedData: true, unit: 1)
        #expect(connectionEnded5 == 1000)
        let connectionEnded6 = reconnection.connectionEnded(carriedData: false, unit: 0)
        #expect(connectionEnded6 == 1000)
    }

    @Test func theServersRetryIsAFloorAndAGapIsRecoveredOnlyWhereTheSourceRecovers() {
        var reconnection = StreamReconnection(backoff: ReconnectBackoff(), recovers: false, startsWithGap: false)
        reconnection.serverAsked(retry: 7000)
        let connectionEnded = reconnection.connectionEnded(carriedData: true, unit: 1)
        #expect(connectionEnded == 7000)
        #expect(!reconnection.recoversGap)
        #expect(StreamReconnection(backoff: ReconnectBackoff(), recovers: true, startsWithGap: true).recoversGap)
    }
}
