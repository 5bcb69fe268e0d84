import Benchmark
import Foundation
import Liveline

/// Planning football matches through the scheduler, payload bytes and all, against Foundation's
/// JSONEncoder writing the same payloads: the reference ratio, taken in the same run.
let football: ActivityProgram = {
    let path = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios/football.yaml").path
    do {
        let scenario = try ScenarioLoader().load(file: path).scenario
        return ActivityProgram(scenario.activities[0], index: 0, scenarioSeed: scenario.seed)
    } catch {
        fatalError("cannot load \(path): \(error)")
    }
}()

let start: Millis = 1_795_464_000_000

/// The same payload as a Codable value, for JSONEncoder.
struct APSPayload: Encodable {
    struct APS: Encodable {
        var timestamp: Int64
        var event: String
        var contentState: MatchState
        var staleDate: Int64?
        var dismissalDate: Int64?
        var relevanceScore: Double?
        var alert: Alert?

        enum CodingKeys: String, CodingKey {
            case timestamp, event, contentState = "content-state", staleDate = "stale-date"
            case dismissalDate = "dismissal-date", relevanceScore = "relevance-score", alert
        }
    }

    struct MatchState: Encodable {
        var minute: Int
        var addedTime: Int
        var homeScore: Int
        var awayScore: Int
        var phase: String
        var lastEvent: String?
        var kickoff: Date
    }

    struct Alert: Encodable {
        var title: String?
        var body: String?
        var sound: String?
    }

    var aps: APS
}

/// One match's pushes, read back into Codable values.
let referencePayloads: [APSPayload] = {
    struct Capture: PushSink {
        var payloads: [APSPayload] = []
        mutating func receive(_ push: Push, from activity: ActivityEngine) {
            guard case .object(let top)? = try? JSONParser.parse(push.payload), case .object(let aps)? = top["aps"],
                case .object(let state)? = aps["content-state"]
            else { return }
            func int(_ object: StateObject, _ key: String) -> Int64? {
                if case .int(let v)? = object[key] { return Int64(v) }
                return nil
            }
            func string(_ object: StateObject, _ key: String) -> String? {
                if case .string(let v)? = object[key] { return v }
                return nil
            }
            var alert: APSPayload.Alert?
            if case .object(let a)? = aps["alert"] {
                alert = .init(title: string(a, "title"), body: string(a, "body"), sound: string(a, "sound"))
            }
            payloads.append(
                APSPayload(
                    aps: .init(
                        timestamp: int(aps, "timestamp") ?? 0, event: string(aps, "event") ?? "update",
                        contentState: .init(
                            minute: Int(int(state, "minute") ?? 0), addedTime: Int(int(state, "addedTime") ?? 0),
                            homeScore: Int(int(state, "homeScore") ?? 0), awayScore: Int(int(state, "awayScore") ?? 0),
                            phase: string(state, "phase") ?? "", lastEvent: string(state, "lastEvent"),
                            kickoff: Date(timeIntervalSinceReferenceDate: Double(int(state, "kickoff") ?? 0))
                        ),
                        staleDate: int(aps, "stale-date"), dismissalDate: int(aps, "dismissal-date"),
                        relevanceScore: int(aps, "relevance-score").map(Double.init), alert: alert
                    )))
        }
        mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {}
    }
    var run = ScenarioRun(activities: [ActivityEngine(program: football, id: 0, scenarioStart: start)])
    var capture = Capture()
    run.run(into: &capture)
    return capture.payloads
}()

let pushesPerSecond = BenchmarkMetric.custom("pushes/s", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    let matches = 10_000
    Benchmark(
        "Plan 10,000 football matches through the scheduler",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, pushesPerSecond], maxDuration: .seconds(30), maxIterations: 10)
    ) { benchmark in
        let clock = ContinuousClock()
        let began = clock.now
        var run = ScenarioRun(
            activities: (0..<matches).map {
                ActivityEngine(program: football, id: $0, copy: $0, scenarioStart: start)
            })
        var sink = DiscardSink()
        run.run(into: &sink)
        let elapsed = clock.now - began
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        benchmark.measurement(pushesPerSecond, Int(Double(sink.pushes) / seconds))
        blackHole(sink.bytes)
    }

    Benchmark(
        "Reference: Foundation JSONEncoder writing the same payloads (1,000 matches' worth)",
        configuration: .init(metrics: [.wallClock, pushesPerSecond], maxDuration: .seconds(30), maxIterations: 10)
    ) { benchmark in
        let encoder = JSONEncoder()
        let clock = ContinuousClock()
        let began = clock.now
        var bytes = 0
        var count = 0
        for _ in 0..<1000 {
            for payload in referencePayloads {
                bytes += (try? encoder.encode(payload).count) ?? 0
                count += 1
            }
        }
        let elapsed = clock.now - began
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        benchmark.measurement(pushesPerSecond, Int(Double(count) / seconds))
        blackHole(bytes)
    }
}
