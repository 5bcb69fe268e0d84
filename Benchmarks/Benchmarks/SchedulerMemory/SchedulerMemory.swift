import Benchmark
import Foundation
import Liveline

/// 100,000 football matches held at once in one scheduler, mid-match: the peak memory of a
/// process that holds them (this target runs nothing else, so the peak is its own).
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

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "Hold 100,000 concurrent activities in the scheduler (each played 45 minutes in)",
        configuration: .init(
            metrics: [.peakMemoryResident, .wallClock, .mallocCountTotal], maxDuration: .seconds(60), maxIterations: 3)
    ) { _ in
        let start: Millis = 1_795_464_000_000
        var run = ScenarioRun(
            activities: (0..<100_000).map {
                ActivityEngine(program: football, id: $0, copy: $0, scenarioStart: start + Millis($0 % 600) * 1000)
            })
        var sink = DiscardSink()
        // Mid-match: goals, alerts and relevance applied, every activity alive and scheduled.
        run.run(until: start + 45 * 60_000, into: &sink)
        blackHole(run.activities.count)
        blackHole(sink.pushes)
    }
}
