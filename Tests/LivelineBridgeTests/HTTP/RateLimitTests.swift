import Foundation
import HTTPTypes
import Liveline
import Testing
@testable import LivelineBridge

/// Per-source rate limits: the bucket in chosen instants, the configuration's forms and
/// mistakes, and the 429 with `Retry-After` over real HTTP.
@Suite struct RateLimitTests {
    let origin = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { origin.advanced(by: .milliseconds(Int64(seconds * 1000))) }

    @Test func theBucketAdmitsABurstThenRefillsAtTheRate() {
        let limiter = SourceRateLimiter(RateLimit(perSecond: 2, burst: 3))
        #expect((0..<3).map { _ in limiter.admit(at: at(0)) } == [.admitted, .admitted, .admitted])
        #expect(limiter.admit(at: at(0)) == .limited(retryAfter: 1))
        #expect(limiter.admit(at: at(0.25)) == .limited(retryAfter: 1))
        #expect(limiter.admit(at: at(0.5)) == .admitted)
        #expect(limiter.admit(at: at(0.5)) == .limited(retryAfter: 1))
        // A long quiet spell refills to the burst, no further.
        #expect(
            (0..<4).map { _ in limiter.admit(at: at(100)) } == [
                .admitted, .admitted, .admitted, .limited(retryAfter: 1),
            ])
    }

    @Test func retryAfterIsTheWholeSecondsUntilATokenIsBack() {
        let limiter = SourceRateLimiter(RateLimit(perSecond: 1.0 / 60))
        #expect(limiter.limit.burst == 1)
        #expect(limiter.admit(at: at(0)) == .admitted)
        #expect(limiter.admit(at: at(0)) == .limited(retryAfter: 60))
        #expect(limiter.admit(at: at(30.5)) == .limited(retryAfter: 30))
        #expect(limiter.admit(at: at(60)) == .admitted)
    }

    @Test func anEarlierInstantRefillsNothing() {
        let limiter = SourceRateLimiter(RateLimit(perSecond: 1, burst: 1))
        #expect(limiter.admit(at: at(10)) == .admitted)
        #expect(limiter.admit(at: at(5)) == .limited(retryAfter: 1))
        #expect(limiter.admit(at: at(10.5)) == .limited(retryAfter: 1))
        #expect(limiter.admit(at: at(11)) == .admitted)
    }

    @Test(
        arguments: [
            ("50/s", 50.0, 50), ("3000/min", 50.0, 50), ("36/h", 0.01, 1), ("0.5/s", 0.5, 1),
            (" 10 / second ", 10.0, 10),
        ] as [(String, Double, Int)])
    func ratesParse(_ text: String, _ perSecond: Double, _ burst: Int) throws {
        let limit = try #require(RateLimit(parsing: text))
        #expect(abs(limit.perSecond - perSecond) < 1e-9)
        #expect(limit.burst == burst)
    }

    @Test(arguments: ["50", "0/s", "-5/s", "fast/s", "50/day", "nan/s", "inf/s", "50/s/s", ""])
    func nonsenseIsNoRate(_ text: String) {
        #expect(RateLimit(parsing: text) == nil)
    }

    @Test func ratesPrintAsWritten() {
        #expect(RateLimit(perSecond: 50).description == "50/s, burst 50")
        #expect(RateLimit(perSecond: 0.5, burst: 5).description == "30/min, burst 5")
    }

    // MARK: Configuration

    static let configuration = """
        liveline-bridge: 1
        rate-limit: 100/s
        sources:
          shop:
            verify: github
            secrets: [s3cret]
            event-type: /type
            activity-key: /order
            scenario: delivery.yaml
            events:
              note:
                trigger: courier-note
          feed:
            verify: github
            secrets: [s3cret]
            event-type: /type
            activity-key: /order
            scenario: delivery.yaml
            rate-limit: {rate: 600/min, burst: 40}
            events:
              note:
                trigger: courier-note
          trusted:
            verify: github
            secrets: [s3cret]
            event-type: /type
            activity-key: /order
            scenario: delivery.yaml
            rate-limit: none
            events:
              note:
                trigger: courier-note
        """

    @Test func eachSourceHasItsOwnLimitOrTheDefault() throws {
        let configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: Self.configuration, file: testConfigurationFile)
        #expect(configuration.source(named: "shop")?.rateLimit == RateLimit(perSecond: 100))
        #expect(configuration.source(named: "feed")?.rateLimit == RateLimit(perSecond: 10, burst: 40))
        #expect(configuration.source(named: "trusted")?.rateLimit == nil)
    }

    @Test func mistakesAreLocated() {
        func errors(_ old: String, _ new: String) -> [String] {
            configurationErrors(Self.configuration.replacingOccurrences(of: old, with: new)).map(\.description)
        }
        let file = testConfigurationFile
        #expect(
            errors("rate-limit: 100/s", "rate-limit: fast") == [
                "\(file):2:13: error: expected rate-limit as a rate like 50/s or 3000/min, {rate: 50/s, burst: 200}, or none, found 'fast'"
            ])
        #expect(
            errors("burst: 40", "burst: 0") == [
                "\(file):19:40: error: expected burst as a whole number of requests from 1 to 1000000, found '0'"
            ])
        #expect(
            errors("{rate: 600/min, burst: 40}", "{burst: 40}").first?.contains("rate-limit is missing 'rate'") == true)
        #expect(
            errors("{rate: 600/min, burst: 40}", "{rate: 600/day}") == [
                "\(file):19:24: error: expected rate as a rate like 50/s, 3000/min or 10/h, found '600/day'"
            ])
    }

    // MARK: Over HTTP

    @Test func overTheLimitIsA429WithRetryAfterAndNothingStored() async throws {
        try await RunningBridge.with(configure: { configuration in
            let index = try #require(configuration.sources.firstIndex { $0.name == "doordash" })
            configuration.sources[index].rateLimit = RateLimit(perSecond: 1.0 / 60, burst: 2)
        }) { bridge in
            var answers: [Curl.Answer] = []
            for n in 1...3 {
                let body = WebhookIngestTests.doorDash.replacingOccurrences(of: "D-1", with: "D-\(n)")
                answers.append(
                    try await Curl.run(
                        "\(bridge.base)/v1/webhooks/doordash", Curl.headers(WebhookIngestTests.doorDashAuth),
                        body: bytes(body)))
            }
            #expect(answers.map(\.status) == [202, 202, 429])
            let refused = answers[2]
            let retryAfter = try #require(refused.headers["retry-after"].flatMap { Int($0) })
            #expect(
                (1...60).contains(retryAfter),
                "a whole number of seconds until the next token, at most the 60 s one token takes")
            #expect(refused.body.contains(#""error":"rate-limited""#))
            #expect(
                refused.body.contains(
                    "source 'doordash' is limited to 1/min, burst 2; send this webhook again in \(retryAfter) s"))
            #expect(try await bridge.store.counts().pendingEvents == 2)

            // Another source has its own bucket (here, none).
            let other = try await bridge.post(
                "uber", WebhookIngestTests.uber, headers: try bridge.signed("uber", WebhookIngestTests.uber))
            #expect(other.status == 202)

            let metrics = try await Curl.run("\(bridge.base)/metrics")
            #expect(
                metrics.body.contains(#"liveline_webhooks_total{source="doordash",result="rate_limited"} 1"#),
                "\(metrics.body)")
        }
    }
}
