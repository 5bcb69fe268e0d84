import Testing

@testable import LivelineMockAPNs

/// A mock connection's life, event by event, without a socket: every transition of
/// ``APNsConnectionHandler/StateMachine``, the ones a well-behaved client never causes too.
@Suite struct ConnectionStateMachineTests {
    typealias Machine = APNsConnectionHandler.StateMachine

    static func open() -> Machine {
        var machine = Machine()
        _ = machine.opened()
        return machine
    }

    @Test func aConnectionOpensOnceAndIsCountedClosedOnce() {
        var machine = Machine()
        let opened = machine.opened()
        #expect(opened)
        let opened2 = machine.opened()
        #expect(!opened2)
        #expect(machine.state == .open)
        let closed = machine.closed()
        #expect(closed)
        #expect(machine.isClosed)
        let closed2 = machine.closed()
        #expect(!closed2)
        let opened3 = machine.opened()
        #expect(!opened3)
    }

    @Test func theStreamLimitIsRaisedOnceAfterTheFirstValidToken() {
        var idle = Machine()
        let validTokenSeen = idle.validTokenSeen()
        #expect(!validTokenSeen)
        var machine = Self.open()
        let validTokenSeen2 = machine.validTokenSeen()
        #expect(validTokenSeen2)
        let validTokenSeen3 = machine.validTokenSeen()
        #expect(!validTokenSeen3)
        // Going away, the first valid token still raises it: the streams in flight are answered.
        var goingAway = Self.open()
        let goAway = goingAway.goAway()
        #expect(goAway == .sendGoAway)
        let validTokenSeen4 = goingAway.validTokenSeen()
        #expect(validTokenSeen4)
        var closed = Self.open()
        _ = closed.closed()
        let validTokenSeen5 = closed.validTokenSeen()
        #expect(!validTokenSeen5)
    }

    @Test func aGoAwayGoesOutOnceAndTheConnectionClosesWhenItsStreamsAreAnswered() {
        var machine = Self.open()
        let closeIfDrained = machine.closeIfDrained(openStreams: 0)
        #expect(!closeIfDrained)
        let goAway = machine.goAway()
        #expect(goAway == .sendGoAway)
        let goAway2 = machine.goAway()
        #expect(goAway2 == .ignore)
        #expect(!machine.isClosed)
        let closeIfDrained2 = machine.closeIfDrained(openStreams: 3)
        #expect(!closeIfDrained2)
        let closeIfDrained3 = machine.closeIfDrained(openStreams: 0)
        #expect(closeIfDrained3)
        #expect(machine.isClosed)
        let closeIfDrained4 = machine.closeIfDrained(openStreams: 0)
        #expect(!closeIfDrained4)
        // Counted closed by the drain: the channel's close that follows counts nothing.
        let closed = machine.closed()
        #expect(!closed)
        let goAway3 = machine.goAway()
        #expect(goAway3 == .ignore)
    }

    @Test func aGoAwayAskedForBeforeTheConnectionIsUpClosesItWithoutAWord() {
        var machine = Machine()
        let goAway = machine.goAway()
        #expect(goAway == .close)
        let opened = machine.opened()
        #expect(!opened)
        // Never counted opened, so never counted closed.
        let closed = machine.closed()
        #expect(!closed)
    }

    @Test func aProtocolErrorSendsGoAwayUnlessOneWentOutAndEndsTheConnectionOnce() {
        var machine = Self.open()
        let connectionError = machine.connectionError()
        #expect(connectionError == .init(sendGoAway: true, countClosed: true))
        let connectionError2 = machine.connectionError()
        #expect(connectionError2 == nil)
        let closed = machine.closed()
        #expect(!closed)
        var goingAway = Self.open()
        _ = goingAway.goAway()
        let connectionError3 = goingAway.connectionError()
        #expect(connectionError3 == .init(sendGoAway: false, countClosed: true))
        let closeIfDrained = goingAway.closeIfDrained(openStreams: 0)
        #expect(!closeIfDrained)
        var idle = Machine()
        let connectionError4 = idle.connectionError()
        #expect(connectionError4 == .init(sendGoAway: false, countClosed: false))
    }

    @Test func aConnectionThatClosesBeforeItIsUpIsNeverCounted() {
        var machine = Machine()
        let closeIfDrained = machine.closeIfDrained(openStreams: 0)
        #expect(!closeIfDrained)
        #expect(machine.state == .idle)
        let closed = machine.closed()
        #expect(!closed)
        #expect(machine.isClosed)
        let opened = machine.opened()
        #expect(!opened)
        let goAway = machine.goAway()
        #expect(goAway == .ignore)
    }

    @Test func aConnectionGoingAwayDoesNotOpenAgain() {
        var machine = Self.open()
        _ = machine.goAway()
        let opened = machine.opened()
        #expect(!opened)
        #expect(machine.state == .goingAway)
    }

    @Test func aHangUpWhileGoingAwayIsCountedOnce() {
        var machine = Self.open()
        _ = machine.goAway()
        let closed = machine.closed()
        #expect(closed)
        let closeIfDrained = machine.closeIfDrained(openStreams: 0)
        #expect(!closeIfDrained)
        let connectionError = machine.connectionError()
        #expect(connectionError == nil)
    }
}
