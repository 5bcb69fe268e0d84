import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineTestSupport
import Logging
import Testing

/// What the client and the delivery write to the `Logger` a backend gives them, against the mock
/// APNs over TLS on loopback.
@Suite(.serialized) struct ClientLoggingTests {
    /// Whether any entry shows `secret` (a provider token, a whole device token).
    static func shows(_ secret: String, in log: CapturedLog) -> Bool {
        log.all.contains { "\($0)".contains(secret) }
    }

    @Test func aConnectionItsStreamLimitAndAGoAwayAreLoggedWithTheirCodeAndReason() async throws {
        let log = CapturedLog()
        let session = try await MockSession.start(
            clientLogger: log.logger(), configure: { $0.faults = FaultPlan(goAwayEvery: 1) })
        let token = MockSession.token(1)
        let response = try await session.client.send(
            MockSession.updateRequest(token: token, timestamp: Int64(Date().timeIntervalSince1970)))
        #expect(response.status == 200)
        try await eventually("the GOAWAY logged") { !log.entries("GOAWAY").isEmpty }
        let goAway = try #require(log.entries("APNs sent GOAWAY").first)
        #expect(goAway.level == .notice)
        #expect(goAway.metadata["code"] == "NO_ERROR")
        #expect(goAway.metadata["debug-data"] == #"{"reason":"Shutdown"}"#)
        #expect(goAway.metadata["apns-connection"] == "1")
        #expect(goAway.metadata["apns-host"] == "127.0.0.1:\(session.server.port)")
        #expect(log.entries("connected to APNs").first?.level == .debug)
        #expect(log.entries("APNs changed the stream limit").first?.metadata["from"] == "1")
        try await eventually("the close logged") { !log.entries("APNs connection closed").isEmpty }
        // Each answer at trace, its device token masked; never a whole token, never the JWT.
        let answered = try #require(log.entries("APNs answered").first)
        #expect(answered.level == .trace)
        #expect(answered.metadata["path"] == "/3/device/" + APNsRequest.masked(token: token))
        #expect(answered.metadata["status"] == "200")
        #expect(!Self.shows(token, in: log))
        #expect(!Self.shows("eyJ", in: log))
        await session.stop()
    }

    @Test func aRetryIsLoggedWithItsReasonAndDelayAndGivingUpAsAWarning() async throws {
        let log = CapturedLog()
        let session = try await MockSession.start(
            clientLogger: log.logger(),
            configure: {
                $0.faults = FaultPlan(errors: [.init(error: .init(status: 500, reason: "InternalServerError"), rate: 1)]
                )
            })
        let events = EventLog()
        let delivery = PushDelivery(
            client: session.client,
            configuration: .init(
                bundleID: MockSession.bundleID,
                retry: RetryPolicy(base: .milliseconds(1), cap: .milliseconds(1), maxAttempts: 2))
        ) { events.append($0) }
        let token = MockSession.token(7)
        delivery.setTarget(.device(token), for: 0)
        let now = Int64(Date().timeIntervalSince1970)
        delivery.submit(
            Push(
                activity: 0, sequence: 1, time: 0, event: .update, priority: .low, timestamp: now, expiration: 0,
                payload: Array(#"{"aps":{"timestamp":\#(now),"event":"update","content-state":{"score":1}}}"#.utf8),
                reason: PushReason(kind: .beat, beat: "goal")))
        await delivery.waitUntilIdle()
        let retry = try #require(log.entries("push retrying").first)
        #expect(retry.level == .debug)
        #expect(retry.metadata["reason"] == "500 InternalServerError")
        #expect(retry.metadata["attempt"] == "2")
        #expect(retry.metadata["delay-ms"] != nil)
        #expect(log.entries("push given up").first?.level == .warning)
        #expect(!Self.shows(token, in: log))
        await session.stop()
    }

    @Test func aWrongKeyIsAWarningOncePerConnectionThenDebug() async throws {
        let log = CapturedLog()
        let session = try await MockSession.start()
        let wrong = try session.clientWithUnknownKey(logger: log.logger(level: .debug))
        for i in 0..<3 {
            let response = try await wrong.send(
                MockSession.updateRequest(token: MockSession.token(i), timestamp: Int64(Date().timeIntervalSince1970)))
            #expect(response.status == 403)
        }
        let errors = log.entries("APNs configuration error")
        #expect(errors.map(\.level) == [.warning, .debug, .debug])
        #expect(errors.first?.message.contains("--key-id") == true)
        // Answers are not traced below trace.
        #expect(log.entries("APNs answered").isEmpty)
        await wrong.shutdown()
        await session.stop()
    }

    @Test func anExpiredTokenRenewedIsANotice() async throws {
        let log = CapturedLog()
        let calls = Counter()
        let realNow = Int64(Date().timeIntervalSince1970)
        let session = try await MockSession.start(
            clientNow: { calls.next() == 0 ? realNow - 7200 : realNow }, clientLogger: log.logger())
        let response = try await session.client.send(
            MockSession.updateRequest(token: MockSession.token(3), timestamp: realNow))
        #expect(response.status == 200)
        #expect(log.entries("renewed it").first?.level == .notice)
        await session.stop()
    }

    @Test func deviceTokensAreMaskedInLogs() {
        let token = String(repeating: "ab", count: 32)
        #expect(APNsRequest.masked(token: token) == "ababab…abab")
        #expect(APNsRequest.masked(token: "short") == "…(5)")
    }
}
