import Liveline
@testable import LivelineAPNs
import Testing

@Suite struct ClientPartsTests {
    @Test func endpointsParseFromURLs() throws {
        let tls = try APNsEndpoint(url: "https://127.0.0.1:2197")
        #expect(tls == APNsEndpoint(host: "127.0.0.1", port: 2197, tls: true))
        #expect(tls.authority == "127.0.0.1:2197")
        let h2c = try APNsEndpoint(url: "http://localhost:8080/ignored")
        #expect(h2c.tls == false && h2c.port == 8080 && h2c.host == "localhost")
        #expect(try APNsEndpoint(url: "https://[::1]:2197").host == "::1")
        #expect(APNsEndpoint.sandbox.authority == "api.sandbox.push.apple.com")
        #expect(throws: EndpointError.self) { try APNsEndpoint(url: "ftp://x") }
        #expect(throws: EndpointError.self) { try APNsEndpoint(url: "https://x:99999") }
    }

    @Test func backoffGrowsExponentiallyWithFullJitterUpToTheCap() {
        let policy = RetryPolicy(base: .milliseconds(100), cap: .seconds(2))
        #expect(policy.delay(beforeAttempt: 2, random: 0.999) <= 100)
        #expect(policy.delay(beforeAttempt: 3, random: 0.999) <= 200)
        #expect(policy.delay(beforeAttempt: 3, random: 0.999) > 150)
        #expect(policy.delay(beforeAttempt: 20, random: 0.999) <= 2_000)
        #expect(policy.delay(beforeAttempt: 4, random: 0) == 0)
    }

    func push(_ json: String, priority: Priority, event: PushEvent = .update) -> Push {
        Push(
            activity: 0, sequence: 0, time: 0, event: event, priority: priority, timestamp: 1, expiration: 0,
            payload: Array(json.utf8), reason: PushReason(kind: .beat, beat: "b", merged: 1))
    }

    @Test func aNewerPushSupersedingKeepsTheOlderAlertAndPriority() throws {
        let goal = push(
            #"{"aps":{"timestamp":10,"event":"update","content-state":{"s":1},"alert":{"title":"GOAL"}}}"#,
            priority: .high)
        let tick = push(#"{"aps":{"timestamp":11,"event":"update","content-state":{"s":1,"m":24}}}"#, priority: .low)
        let merged = tick.superseding(goal)
        #expect(merged.priority == .high)
        #expect(
            String(decoding: merged.payload, as: UTF8.self)
                == #"{"aps":{"timestamp":11,"event":"update","content-state":{"s":1,"m":24},"alert":{"title":"GOAL"}}}"#
        )
        #expect(merged.reason.merged == 2)
        let plain = tick.superseding(tick)
        #expect(plain.payload == tick.payload)
    }
}
