import Foundation
import Liveline
import LivelineTestSupport
import Testing

/// Random scenarios, generated as YAML from a seed, must keep the engine's promises.
@Suite struct PropertyTests {
    /// A small deterministic generator (SplitMix64).
    struct Generator {
        var random: SplitMix64
        init(state: UInt64) { random = SplitMix64(seed: state) }
        mutating func next() -> UInt64 { random.next() }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func chance(_ p: Double) -> Bool { Double(next() % 1000) < p * 1000 }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
    }

    static func randomScenario(_ seed: UInt64) -> String {
        var g = Generator(state: seed)
        let staleAfter = g.pick(["none", "2m", "5m", "10m"])
        var yaml = """
            liveline: 1
            name: Random \(seed)
            seed: \(g.int(0...1000))
            policy:
              min-interval: \(g.pick(["0", "5s", "15s", "30s"]))
              stale-after: \(staleAfter)
              heartbeat: \(staleAfter == "2m" ? "30s" : g.pick(["30s", "1m"]))
              budget: \(g.pick([0, 1, 2, 5, 12]))
              over-budget: \(g.pick(["downgrade", "defer"]))
              dismissal: \(g.pick(["default", "immediate", "5m"]))
              expiration: \(g.pick(["0", "1h"]))
            activities:

            """
        for a in 0..<g.int(1...3) {
            let pushStarted = g.chance(0.3)
            yaml += """
                  - name: act-\(a)
                    at: \(g.int(0...30))m
                    attributes-type: RandomAttributes
                    attributes: { label: "activity \(a)", number: \(a) }
                    content-state:
                      count: 0
                      ratio: 0.5
                      text: "start"
                      flag: false
                      maybe: null
                      eta: !date +\(g.int(1...90))m
                      nested: { a: 1, b: "x" }
                \(g.chance(0.5) ? "    relevance: \(g.int(0...100))\n" : "")    beats:

                """
            var last = 0
            if pushStarted {
                yaml +=
                    "      - { id: start, at: 0, start: \(g.pick(["true", "{ input-push-token: true }"])), alert: { title: \"Go {{ activity }}\" } }\n"
            }
            for b in 0..<g.int(3...12) {
                let at = g.int(1...120)
                last = max(last, at)
                var beat = "id: b\(b), "
                let repeating = g.chance(0.25)
                if repeating {
                    let count = g.int(1...15)
                    beat += "every: \(g.int(1...5))m, from: \(at)m, count: \(count), "
                    last = max(last, at + 5 * count)
                } else {
                    beat += "at: \(at)m\(g.int(0...59))s, "
                }
                if g.chance(0.3) { beat += "jitter: \(g.int(1...60))s, " }
                if g.chance(0.2) { beat += "chance: 0.\(g.int(1...9)), " }
                if g.chance(0.4) { beat += "priority: \(g.pick(["high", "low"])), " }
                if g.chance(0.3) { beat += "relevance: \(g.int(0...100)), " }
                if g.chance(0.15) { beat += "stale-after: \(g.pick(["3m", "none"])), " }
                if g.chance(0.2) {
                    beat +=
                        "alert: { title: \"Alert \(b)\", body: { loc-key: BODY, loc-args: [\"{{ state.count }}\"] } }, "
                }
                var set: [String] = []
                if g.chance(0.6) {
                    set.append(
                        repeating
                            ? "count: \"{{ n + state.count }}\"" : "count: \"{{ state.count + \(g.int(1...3)) }}\"")
                }
                if g.chance(0.3) { set.append("ratio: \(g.int(0...100)).\(g.int(0...99))") }
                if g.chance(0.4) { set.append("text: \"step \(b) at {{ minute }}\"") }
                if g.chance(0.2) { set.append("flag: \(g.chance(0.5))") }
                if g.chance(0.2) { set.append("maybe: \(g.chance(0.5) ? "\"v\(b)\"" : "null")") }
                if g.chance(0.3) { set.append("eta: !date +\(g.int(0...60))m") }
                if g.chance(0.2) { set.append("nested: { a: \"{{ random(1, 9) }}\" }") }
                if set.isEmpty { set.append("text: \"beat \(b)\"") }
                beat += "set: { \(set.joined(separator: ", ")) }"
                yaml += "      - { \(beat) }\n"
            }
            yaml += "      - { id: poke, set: { text: \"poked\" } }\n"
            if g.chance(0.7) {
                yaml +=
                    "      - { id: final, at: \(last + 2)m, end: \(g.pick(["true", "{ dismissal: immediate }", "{ dismissal: 10m }"])) }\n"
            }
        }
        return yaml
    }

    /// What the content-state JSON must read back as, from the engine's state.
    static func expectedJSON(_ value: StateValue) -> StateValue {
        func seconds(_ unix: Millis) -> StateValue {
            let millis = ReferenceDate.millis(fromUnix: unix)
            return millis % 1000 == 0 ? .int(Int(millis / 1000)) : .double(Double(millis) / 1000)
        }
        switch value {
        case .date(let unix): return seconds(unix)
        case .dateRange(let a, let b): return .array([seconds(a), seconds(b)])
        case .array(let items): return .array(items.map(expectedJSON))
        case .object(let object):
            return .object(StateObject(zip(object.keys, object.values.map(expectedJSON)).map { ($0, $1) }))
        default: return value
        }
    }

    @Test("random scenarios keep the engine's promises", arguments: 0..<8)
    func randomScenariosKeepThePromises(batch: Int) async throws {
        // Seconds of CPU: checked on a Dispatch thread, so the tests that run in real time
        // beside this one keep the cooperative pool.
        let (failures, seen) = await Subprocess.offPool { Self.check(batch: batch) }
        #expect(
            failures.isEmpty, "\(failures.count) broken promise(s):\n\(failures.prefix(20).joined(separator: "\n"))")
        // The generator must exercise every kind of push, or the checks prove little.
        for kind in ["start", "update", "end", "heartbeat", "coalesced", "p10", "downgraded"] {
            #expect(seen[kind, default: 0] > 0, "batch \(batch) produced no \(kind) push")
        }
    }

    /// Plays batch `batch`'s 30 random scenarios and returns the promises they broke, and how
    /// many pushes of each kind they made.
    static func check(batch: Int) -> (failures: [String], seen: [String: Int]) {
        var seen: [String: Int] = [:]
        var failures: [String] = []
        func check(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { failures.append(message()) }
        }
        for seed in UInt64(batch * 30)..<UInt64(batch * 30 + 30) {
            let yaml = Self.randomScenario(seed)
            let scenario: Scenario
            do {
                scenario = try ScenarioLoader().load(yaml: yaml, file: "random-\(seed).yaml").scenario
            } catch {
                failures.append("random scenario \(seed) did not load:\n\(error)\n\(yaml)")
                continue
            }
            var run = ScenarioRun(scenario: scenario, start: testStart)
            var sink = Collector()
            run.run(into: &sink)
            check(sink.rejected.isEmpty, "seed \(seed): rejected \(sink.rejected)")
            var lastTimestamp: [Int: Int64] = [:]
            var ended: Set<Int> = []
            for entry in sink.entries {
                let push = entry.push
                let context = "seed \(seed), \(entry.name) push \(push.sequence): \(push.text)"
                check(!ended.contains(push.activity), "a push after the end: \(context)")
                if let last = lastTimestamp[push.activity] { check(push.timestamp > last, "timestamps: \(context)") }
                lastTimestamp[push.activity] = push.timestamp
                if push.event == .end { ended.insert(push.activity) }
                seen[push.event.rawValue, default: 0] += 1
                if push.reason.kind == .heartbeat { seen["heartbeat", default: 0] += 1 }
                if push.reason.merged > 1 { seen["coalesced", default: 0] += 1 }
                if push.priority == .high { seen["p10", default: 0] += 1 }
                if case .downgraded = push.reason.budget { seen["downgraded", default: 0] += 1 }
                check(push.payload.count <= PayloadLimits.device, "size \(push.payload.count): \(context)")
                check(
                    (try? JSONSerialization.jsonObject(with: Data(push.payload))) != nil,
                    "Foundation cannot parse: \(context)")
                let aps = push.aps
                check(aps["timestamp"] == .int(Int(push.timestamp)), "aps.timestamp: \(context)")
                check(aps["event"] == .string(push.event.rawValue), "aps.event: \(context)")
                if case .int(let stale)? = aps["stale-date"] {
                    check(Int64(stale) > push.timestamp, "stale-date: \(context)")
                }
                check(
                    aps["content-state"] == Self.expectedJSON(.object(entry.state)),
                    "content-state round trip: \(context)")
                check(
                    push.priority == .low || push.reason.budget != .notCharged,
                    "a high-priority push not charged: \(context)")
            }
        }
        return (failures, seen)
    }
}
