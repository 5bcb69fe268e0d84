import Foundation
import Liveline
@testable import LivelineLoad

/// Scenarios and helpers shared by the load tests.
enum Fixtures {
    /// A short story: four jittered ticks, a goal at priority 10, an end. Seven pushes or so.
    static let shortYAML = """
        liveline: 1
        name: Short match
        bundle-id: com.example.short
        seed: 3
        policy:
          priority: low
          stale-after: 5m
          min-interval: 15s
          heartbeat: 1m
        activities:
          - name: short
            attributes-type: ShortAttributes
            attributes: { title: Short }
            content-state: { step: 0, score: 0 }
            beats:
              - id: tick
                every: 1m
                from: 1m
                to: 4m
                jitter: 10s
                set: { step: "{{ n }}" }
              - id: goal
                at: 2m30s
                jitter: 20s
                priority: high
                set: { score: 1 }
              - id: done
                at: 5m
                end: { dismissal: 1m }
        """

    /// ``shortYAML`` with an `android:` block: the same story as a Live Update.
    static let androidYAML = shortYAML.replacingOccurrences(
        of: "    beats:\n",
        with: """
                android:
                  channel: match-live
                  title: "Short {{ state.score }}"
                  text: "step {{ state.step }}"
                  chip: "{{ state.score }}"
                  progress: "{{ state.step }}"
                  progress-max: 4
                beats:

            """
    ).replacingOccurrences(of: "name: Short match", with: "name: Short match, both platforms")

    /// A story with more high-priority beats than its budget, so it downgrades.
    static let greedyYAML = """
        liveline: 1
        name: Greedy
        bundle-id: com.example.short
        seed: 5
        policy:
          priority: high
          budget: 2
          stale-after: 5m
          min-interval: 1s
          heartbeat: 1m
        activities:
          - name: greedy
            attributes-type: GreedyAttributes
            attributes: { title: Greedy }
            content-state: { n: 0 }
            beats:
              - id: tick
                every: 10s
                from: 10s
                to: 60s
                set: { n: "{{ n }}" }
              - id: done
                at: 2m
                end: {}
        """

    static func scenario(_ yaml: String, file: String = "short.yaml") throws -> Scenario {
        try ScenarioLoader().load(yaml: yaml, file: file).scenario
    }

    static var footballPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios/football.yaml")
            .path
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    static let start: Millis = 1_795_464_000_000

    /// A sink that digests every push (activity, time, priority, payload) into one number.
    struct DigestSink: PushSink {
        var digest: UInt64 = 0
        var count = 0
        var timesByActivity: [Int: [Millis]] = [:]

        mutating func receive(_ push: Push, from activity: ActivityEngine) {
            count += 1
            var h = SeededRandom.hash(digest, UInt64(push.activity), UInt64(bitPattern: push.time))
            for byte in push.payload { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
            digest = SeededRandom.mix(h ^ UInt64(push.priority == .high ? 10 : 5))
            timesByActivity[push.activity, default: []].append(push.time)
        }

        mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {}
    }
}
