import Liveline
import Testing

/// A sink that keeps everything, with the engine's state after each push.
struct Collector: PushSink {
    struct Entry {
        var push: Push
        var state: StateObject
        var lifecycle: ActivityEngine.Lifecycle
        var name: String
    }

    var entries: [Entry] = []
    var rejected: [(push: Push, problem: PushProblem)] = []

    var pushes: [Push] { entries.map(\.push) }

    mutating func receive(_ push: Push, from activity: ActivityEngine) {
        entries.append(
            Entry(push: push, state: activity.state, lifecycle: activity.lifecycle, name: activity.program.spec.name))
    }

    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        rejected.append((push, problem))
    }
}

/// 2026-11-23T20:00:00Z, the start of most test runs.
let testStart: Millis = 1_795_464_000_000

/// Loads scenario YAML, failing the test with every diagnostic if it does not load.
func load(
    _ yaml: String, file: String = "test.yaml", sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws -> LoadedScenario {
    do {
        return try ScenarioLoader().load(yaml: yaml, file: file)
    } catch {
        Issue.record("scenario did not load:\n\(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// The diagnostics of YAML that must not load.
func errors(_ yaml: String, file: String = "test.yaml") -> [Diagnostic] {
    do {
        let loaded = try ScenarioLoader().load(yaml: yaml, file: file)
        Issue.record("expected errors, but it loaded with \(loaded.warnings.count) warning(s)")
        return []
    } catch {
        return error.errors
    }
}

/// Plays a scenario under the virtual clock and collects every push.
func plan(_ yaml: String, start: Millis = testStart, seed: UInt64? = nil) throws -> Collector {
    let scenario = try load(yaml).scenario
    var run = ScenarioRun(scenario: scenario, start: start, seed: seed)
    var collector = Collector()
    run.run(into: &collector)
    return collector
}

/// A one-activity scenario with the given policy lines, first state and beats, indented for YAML.
func scenario(
    policy: String = "", state: String = "{ score: 0, phase: pre }", relevance: String? = nil, beats: String
) -> String {
    var lines = policy.split(separator: "\n").map(String.init)
    if !policy.contains("stale-after") { lines.append("stale-after: 10m") }
    if !policy.contains("heartbeat") { lines.append("heartbeat: 1m") }
    return """
        liveline: 1
        name: Test
        bundle-id: com.example.test
        policy:
        \(lines.map { "  " + $0 }.joined(separator: "\n"))
        activities:
          - name: match
            attributes-type: MatchAttributes
            attributes: { home: A, away: B }
            content-state: \(state)
        \(relevance.map { "    relevance: \($0)" } ?? "")
            beats:
        \(beats.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
        """
}

extension Push {
    /// The payload parsed back, as the `aps` object.
    var aps: StateObject {
        guard case .object(let top)? = try? JSONParser.parse(payload), case .object(let aps)? = top["aps"] else {
            Issue.record("payload is not {\"aps\":{…}}: \(String(decoding: payload, as: UTF8.self))")
            return StateObject()
        }
        return aps
    }

    var text: String { String(decoding: payload, as: UTF8.self) }

    /// Seconds after the test start.
    var offset: Millis { (time - testStart) / 1000 }
}

extension StateObject {
    func int(_ key: String) -> Int? {
        if case .int(let value)? = self[key] { return value }
        return nil
    }
}
