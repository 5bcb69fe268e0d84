import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// Values written into a recording read back as the same values, of the same JSON types.
@Suite struct RecordingYAMLTests {
    static let start: Millis = 1_800_000_000_000

    /// A scenario whose first content-state is `state`, written as a recording writes it, loaded
    /// back and evaluated at its start.
    func roundTrip(_ state: StateObject) throws -> StateObject {
        let yaml = """
            liveline: 1
            activities:
              - name: a
                attributes-type: A
                content-state:\(RecordingYAML.block(state, indent: "      ", start: Self.start))
            """
        let scenario = try ScenarioLoader().load(yaml: yaml, file: "round-trip.yaml").scenario
        let program = ActivityProgram(scenario.activities[0], index: 0, scenarioSeed: scenario.seed)
        return ActivityEngine(program: program, id: 0, scenarioStart: Self.start).initialState()
    }

    @Test func valuesKeepTheirTypes() throws {
        let state = StateObject([
            ("text", .string("She said \"hi\"\\ and left\n\ttabbed · ünïcödé 🍜 \u{2028}")),
            ("braces", .string("{{ not a template }} and {single} }} {{")),
            ("looksLikeANumber", .string("0042")), ("looksLikeABool", .string("yes")), ("empty", .string("")),
            ("integer", .int(-12)), ("whole", .double(3)), ("tiny", .double(1e-7)), ("huge", .double(1.5e300)),
            ("half", .double(0.5)),
            ("flag", .bool(false)), ("nothing", .null),
            ("eta", .date(Self.start + 38 * 60_000 + 250)), ("before", .date(Self.start - 86 * 3_600_000)),
            ("now", .date(Self.start)),
            ("window", .dateRange(Self.start + 1000, Self.start + 3_600_000)),
            ("list", .array([.int(1), .string("two"), .double(3.25)])),
            (
                "nested",
                .object(StateObject([("name", .string("Okafor")), ("number", .int(9)), ("weird key", .bool(true))]))
            ),
            ("true", .string("a key YAML would read as a boolean")),
        ])
        #expect(try roundTrip(state) == state)
    }

    @Test func durationsAreExactAndNumbersKeepAPoint() {
        #expect(RecordingYAML.duration(0) == "0")
        #expect(RecordingYAML.duration(3_723_456) == "1h2m3s456ms")
        #expect(RecordingYAML.duration(DurationText.parse(RecordingYAML.duration(86_400_001)) ?? 0) == "24h1ms")
        #expect(RecordingYAML.relative(Self.start - 90_000, to: Self.start) == "start-1m30s")
        #expect(RecordingYAML.number(1, decimal: true) == "1.0")
        #expect(RecordingYAML.number(1e-7, decimal: true) == "1.0e-07")
        #expect(RecordingYAML.number(100) == "100")
    }

    @Test func namesAndIDsAreValidAndUnique() {
        var names: Set<String> = []
        #expect(RecordingYAML.uniqueName(for: "sr:sport_event:50512345", taken: &names) == "sr-sport_event-50512345")
        #expect(RecordingYAML.uniqueName(for: "SR:Sport_Event:50512345", taken: &names) == "sr-sport_event-50512345-2")
        #expect(RecordingYAML.uniqueName(for: "#!", taken: &names) == "activity")
        var ids: [String: Int] = [:]
        #expect(RecordingYAML.uniqueID(for: "score_change", taken: &ids) == "score_change")
        #expect(RecordingYAML.uniqueID(for: "score_change", taken: &ids) == "score_change-2")
        #expect(RecordingYAML.uniqueID(for: "orders/paid", taken: &ids) == "orders/paid")
    }
}
