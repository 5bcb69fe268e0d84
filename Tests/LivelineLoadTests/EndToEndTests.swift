import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineMockTestSupport
import Testing
@testable import LivelineLoad

@Suite("End to end against the mock over loopback")
struct EndToEndTests {
    static func startMock(subscriptions: [String: [String]] = [:]) async throws -> MockAPNsServer {
        try await LoopbackMockAPNs.start(.h2c) { $0.subscriptions = subscriptions }.server
    }

    @Test("200 activities, virtual clock: every push delivered, none lost, the devices agree")
    func virtualClock() async throws {
        let mock = try await Self.startMock()
        let scenario = try Fixtures.scenario(Fixtures.shortYAML)
        var configuration = LoadConfiguration(mix: try ScenarioMix([(scenario, 1)]), activities: 200)
        configuration.target = .endpoint(
            APNsEndpoint(host: "127.0.0.1", port: mock.port, tls: false), signingKey: nil, name: "mock")
        configuration.maxInFlight = 100
        configuration.tokens = .generated(seed: 1)
        let runner = try LoadRunner(configuration: configuration)
        let result = try await runner.run()
        let stats = mock.stats()
        await mock.shutdown()

        let delivery = try #require(result.delivery)
        #expect(result.pushes.produced >= 200 * 5)
        #expect(delivery.submitted == result.pushes.produced)
        #expect(delivery.delivered == delivery.submitted)
        #expect(delivery.lost == 0 && delivery.superseded == 0 && delivery.rejected == 0)
        #expect(delivery.accounted == delivery.submitted)
        #expect(result.latency.count == delivery.delivered)
        #expect(result.latency.p50Micros > 0)
        #expect(stats.devicePushes == delivery.delivered)
        #expect(stats.device.rendered == delivery.delivered)
        #expect(stats.device.wouldNotRender == 0)
        #expect(stats.activities == 200)
        #expect(result.series.completed.reduce(0, +) == delivery.delivered)
        #expect(result.config.latencyFrom == "release-time")
    }

    @Test("broadcast: one push per channel updates every subscriber")
    func broadcast() async throws {
        let scenario = try Fixtures.scenario(Fixtures.shortYAML)
        var configuration = LoadConfiguration(mix: try ScenarioMix([(scenario, 1)]), activities: 60)
        configuration.broadcast = try BroadcastPlan(channels: 3)
        configuration.tokens = .generated(seed: 2)
        let seed = scenario.seed
        let mock = try await Self.startMock(
            subscriptions: configuration.broadcast!.subscriptions(
                seed: seed, tokens: configuration.tokens, copies: 0..<60))
        configuration.target = .endpoint(
            APNsEndpoint(host: "127.0.0.1", port: mock.port, tls: false), signingKey: nil, name: "mock")
        let result = try await LoadRunner(configuration: configuration).run()
        let stats = mock.stats()
        await mock.shutdown()
        let delivery = try #require(result.delivery)
        let broadcast = try #require(result.broadcast)
        #expect(delivery.lost == 0 && delivery.rejected == 0)
        #expect(broadcast.channels == 3 && broadcast.subscribers == 60)
        #expect(broadcast.pushesSent == delivery.delivered)
        #expect(broadcast.activityUpdates == delivery.delivered * 20)
        #expect(stats.broadcasts == delivery.delivered)
        #expect(stats.device.received == broadcast.activityUpdates)
    }

    @Test("a time limit stops releasing, and what was sent is still accounted for")
    func timeLimit() async throws {
        let mock = try await Self.startMock()
        let scenario = try Fixtures.scenario(Fixtures.shortYAML)
        // A 5-minute story at ×10 takes 30 s from the runner's start; the limit stops it 2 s after
        // the run began, with room for a setup slowed by a busy machine (the story's clock starts
        // with the runner, before the connection is open).
        var configuration = LoadConfiguration(mix: try ScenarioMix([(scenario, 1)], speed: 10), activities: 50)
        configuration.target = .endpoint(
            APNsEndpoint(host: "127.0.0.1", port: mock.port, tls: false), signingKey: nil, name: "mock")
        configuration.clock = .real(speed: 10)
        configuration.timeLimit = .seconds(2)
        let result = try await LoadRunner(configuration: configuration).run()
        await mock.shutdown()
        let delivery = try #require(result.delivery)
        #expect(delivery.lost == 0)
        #expect(delivery.accounted == delivery.submitted)
        #expect(result.config.latencyFrom == "due-time")
        // It ran until the limit and stopped there, with stories left unfinished (how long the
        // drain took after the limit depends on how busy the machine is).
        #expect(result.durationMillis >= 2_000)
        #expect(result.activities.unfinished > 0)
        #expect(result.latency.count == delivery.delivered)
    }

    @Test("discard, virtual clock, two threads: the engines' counts, budget exhaustion included")
    func discard() async throws {
        let greedy = try Fixtures.scenario(Fixtures.greedyYAML, file: "greedy.yaml")
        var configuration = LoadConfiguration(mix: try ScenarioMix([(greedy, 1)]), activities: 100)
        configuration.threads = 2
        let result = try await LoadRunner(configuration: configuration).run()
        #expect(result.delivery == nil)
        #expect(result.pushes.produced > 100 * 4)
        #expect(result.pushes.downgraded > 0)
        #expect(result.activities.exhaustedBudget == 100)
        #expect(result.activities.played == 100)
        #expect(result.config.threads == 2)
        #expect(result.series.sent.reduce(0, +) == result.pushes.produced)
    }
}
