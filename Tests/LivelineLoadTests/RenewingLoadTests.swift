import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineMockTestSupport
import Testing
@testable import LivelineLoad

/// A story longer than iOS's 8 hours (Scenarios/overnight-flight.yaml renews at 7h30m and 15h)
/// played by `liveline load` in virtual time against the mock over loopback. A load test's
/// activities are started by their app: an update token each, no push-to-start token, so they
/// cannot renew. Their renewals are counted `not-renewed`, not lost; each device keeps its one
/// activity, never ended by the end of a renewal that did not happen; and a story that starts
/// by push, which load cannot start, ends the run instead of hanging it.
@Suite struct RenewingLoadTests {
    static let overnight = Fixtures.packageRoot.appendingPathComponent("Scenarios/overnight-flight.yaml")

    /// The flight, started by push (as the file has it) or by its app (no `start:`).
    static func flight(startedByApp: Bool) throws -> Scenario {
        var yaml = try String(contentsOf: overnight, encoding: .utf8)
        if startedByApp {
            yaml = yaml.replacingOccurrences(of: "        start: { input-push-token: true }\n", with: "")
        }
        return try Fixtures.scenario(yaml, file: overnight.path)
    }

    /// Plays `scenario` with 5 activities against a fresh mock; the result and the mock's stats.
    static func play(_ scenario: Scenario) async throws -> (LoadResult, MockAPNsStats) {
        let mock = try await LoopbackMockAPNs.start(.h2c).server
        var configuration = LoadConfiguration(mix: try ScenarioMix([(scenario, 1)]), activities: 5)
        configuration.target = .endpoint(
            APNsEndpoint(host: "127.0.0.1", port: mock.port, tls: false), signingKey: nil, name: "mock")
        configuration.tokens = .generated(seed: 3)
        do {
            let result = try await LoadRunner(configuration: configuration).run()
            let stats = mock.stats()
            await mock.shutdown()
            return (result, stats)
        } catch {
            await mock.shutdown()
            throw error
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func renewalsOfAppStartedActivitiesAreCountedNotRenewedAndNoneIsLost() async throws {
        let (result, stats) = try await Self.play(try Self.flight(startedByApp: true))
        let delivery = try #require(result.delivery)
        // Two renewals per activity, each a successor's start and a predecessor's end.
        #expect(delivery.notRenewed == 5 * 2 * 2, "\(delivery)")
        #expect(delivery.lost == 0 && delivery.rejected == 0 && delivery.gaveUp == 0)
        #expect(delivery.accounted == delivery.submitted)
        #expect(delivery.delivered == delivery.submitted - delivery.notRenewed - delivery.superseded)
        // No device got an end it should not have: every push it took, it rendered.
        #expect(stats.activities == 5)
        #expect(stats.devicePushes == delivery.delivered)
        #expect(stats.device.rendered == delivery.delivered && stats.device.wouldNotRender == 0)
        // Said in the report, apart from the errors.
        let text = TextReport().render(result)
        #expect(text.contains("20 not renewed (no push-to-start token)") && text.contains("0 lost"), "\(text)")
        #expect(delivery.errors == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func aStoryStartedByPushEndsTheRunWithItsActivitiesStopped() async throws {
        let (result, _) = try await Self.play(try Self.flight(startedByApp: false))
        let delivery = try #require(result.delivery)
        #expect(result.activities.stopped == 5, "\(result.activities)")
        #expect(delivery.lost == 0 && delivery.accounted == delivery.submitted, "\(delivery)")
    }
}
