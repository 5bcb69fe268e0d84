import Liveline

extension FuzzTarget {
    /// A scenario file: YAML, the reader's checks, templates, then six virtual hours of the engine.
    static let scenario = FuzzTarget(
        name: "scenario", summary: "scenario YAML loaded, checked and played for 6 virtual hours"
    ) { bytes in
        playScenario(bytes.text)
    }

    /// A template set by a beat every minute: the `{{ }}` parser, then its evaluation each time.
    /// The first byte chooses the field: text (as part of a sentence), a whole number or a decimal.
    static let template = FuzzTarget(
        name: "template", summary: "a {{ }} template set by a beat every minute, into text, an integer or a decimal"
    ) { bytes in
        let (field, rest) = bytes.choice(of: 3)
        let template = rest.text
            .replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        let set = ["text: \"Now: \(template)\"", "score: \"\(template)\"", "ratio: \"\(template)\""][field]
        return playScenario(
            """
            liveline: 1
            name: Fuzz
            bundle-id: com.example.fuzz
            policy: { stale-after: 10m, heartbeat: 1m }
            activities:
              - name: match
                attributes-type: MatchAttributes
                attributes: { home: A, away: B }
                content-state: { score: 0, ratio: 0.0, text: "", flag: false }
                beats:
                  - { id: t, every: 1m, count: 5, set: { \(set) } }
                  - { id: final, at: 10m, end: true }
            """)
    }

    private static func playScenario(_ yaml: String) -> Bool {
        guard let loaded = try? ScenarioLoader().load(yaml: yaml, file: "fuzz.yaml") else { return false }
        let start: Millis = 1_795_464_000_000
        var run = ScenarioRun(scenario: loaded.scenario, start: start, seed: 1)
        var sink = CountingSink()
        run.run(until: start + 6 * 3_600_000, into: &sink)
        return sink.pushes > 0
    }
}

/// Counts what the engine decides, keeping nothing.
private struct CountingSink: PushSink {
    var pushes = 0
    var rejected = 0

    mutating func receive(_ push: Push, from activity: ActivityEngine) { pushes += 1 }
    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) { rejected += 1 }
}
