import Foundation
import Liveline
import LivelineTestSupport
import Testing

/// `liveline play` of a story longer than 8 hours, as a user sees it: against the embedded mock
/// at a large `--speed`, the renewals come and go, each predecessor ended once its successor shows.
@Suite(.serialized) struct PlayRenewalTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theOvernightFlightRenewsTwiceOnTheEmbeddedMock() async throws {
        let file = Self.repository.appendingPathComponent("Scenarios/overnight-flight.yaml")
        let result = try await CLI.run(["play", file.path, "--speed", "3600", "--no-view"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        for number in 1...2 {
            let start = lines.firstIndex {
                $0.contains("start p10 → 200 rendered · renewal #\(number): successor starts")
            }
            let end = lines.firstIndex { $0.contains("end p10 → 200 rendered · renewal #\(number): predecessor ends") }
            #expect(start != nil && end != nil, "\(result.stdout)")
            // The predecessor's end is answered after its successor's start.
            if let start, let end { #expect(start < end) }
        }
        #expect(lines.last?.contains("end p10 → 200 rendered · coalesced 2 beats, last landed") == true, "\(lines)")
        #expect(result.stderr.contains("9 pushes, 9 delivered, 0 retries, 0 failed"), "\(result.stderr)")
    }

    @Test func anActivityTheAppStartedRenewsThroughAPushToStartTokenTheMockMakesUp() async throws {
        let story = """
            liveline: 1
            name: Long order
            bundle-id: com.example.matchday
            policy: { min-interval: 0, stale-after: 1h, renew: { before: 2h, alert: { title: "Order 17" } } }
            activities:
              - name: order
                attributes-type: OrderAttributes
                content-state: { step: 0 }
                beats:
                  - { id: step, every: 1h, to: 4h, set: { step: "{{ n }}" } }
                  - { id: done, at: 5h, end: { dismissal: immediate } }
            """
        let file = try CLI.file(story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(["play", file.path, "--speed", "3600", "--no-view"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains("order start p10 → 200 rendered · renewal #1: successor starts"), "\(result.stdout)")
        #expect(
            result.stdout.contains("order end p10 → 200 rendered · renewal #2: predecessor ends"), "\(result.stdout)")
        #expect(result.stdout.contains("order end p5 → 200 rendered · beat done"), "\(result.stdout)")
    }

    @Test func toAServerByURLARenewingActivityNeedsAPushToStartToken() async throws {
        let story = """
            liveline: 1
            activities:
              - name: order
                attributes-type: OrderAttributes
                content-state: { step: 0 }
                policy: { renew: { before: 7h } }
                beats:
                  - { id: done, at: 9h, end: true }
            """
        let file = try CLI.file(story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let remote = try await PlayCommandTests.Remote.start()
        let result = try await CLI.run(remote.arguments(file), timeout: 60)
        await remote.stop()
        #expect(result.status == 1, "\(result.stderr)")
        #expect(remote.server.stats().requests == 0)
        #expect(
            result.stderr.contains(
                "'order' renews (renew: before 7h): its successor starts by push, so pass the app's push-to-start token with --start-token HEX"
            ), "\(result.stderr)")
    }
}
