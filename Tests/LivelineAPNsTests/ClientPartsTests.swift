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

    @Test(
        "responses map to what a sender does",
        arguments: [
            (200, nil, APNsDisposition.delivered),
            (410, "Unregistered", .tokenGone),
            (410, "ExpiredToken", .tokenGone),
            (400, "BadDeviceToken", .tokenGone),
            (400, "DeviceTokenNotForTopic", .tokenGone),
            (429, "TooManyRequests", .retry(newConnection: false)),
            (500, "InternalServerError", .retry(newConnection: false)),
            (503, "ServiceUnavailable", .retry(newConnection: false)),
            (503, "Shutdown", .retry(newConnection: true)),
            (403, "ExpiredProviderToken", .renewTokenAndRetry),
            (400, "BadExpirationDate", .rejected),
            (413, "PayloadTooLarge", .rejected),
        ] as [(Int, String?, APNsDisposition)])
    func disposition(status: Int, reason: String?, expected: APNsDisposition) {
        #expect(
            APNsDisposition(APNsResponse(status: status, reason: reason.map(APNsReason.init(rawValue:)))) == expected)
    }

    @Test(
        "configuration errors say how to fix them",
        arguments: [
            ("BadTopic", 400, "--topic must be the app's bundle id"),
            ("TopicDisallowed", 400, "--topic"),
            ("InvalidProviderToken", 403, "--key-id"),
            ("BadEnvironmentKeyIdInToken", 403, "--env sandbox"),
            ("MissingProviderToken", 403, ".p8 key"),
        ])
    func configuration(reason: String, status: Int, advice: String) {
        guard
            case .configurationError(let text) = APNsDisposition(
                APNsResponse(status: status, reason: APNsReason(rawValue: reason)))
        else {
            Issue.record("\(reason) is not a configuration error")
            return
        }
        #expect(text.contains(advice))
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
