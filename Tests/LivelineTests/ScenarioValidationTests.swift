import Foundation
import Liveline
import Testing

/// Every validation error names file:line:column and says what was expected.
@Suite struct ScenarioValidationTests {
    /// The single error of `yaml`, checked for place and wording.
    func expectError(
        _ yaml: String, at line: Int, _ column: Int, contains fragments: String...,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let found = errors(yaml, file: "bad.yaml")
        #expect(
            found.count == 1, "expected one error, got:\n\(found.map(\.description).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        guard let error = found.first else { return }
        #expect(
            error.location == Liveline.SourceLocation(file: "bad.yaml", line: line, column: column), "\(error)",
            sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(
                error.message.contains(fragment), "'\(error.message)' lacks '\(fragment)'",
                sourceLocation: sourceLocation)
        }
        #expect(error.description.hasPrefix("bad.yaml:\(line):\(column): error: "), sourceLocation: sourceLocation)
    }

    static let activities =
        "activities: [{ name: m, attributes-type: M, content-state: {}, beats: [{ at: 1m, end: true }] }]\n"

    static let head = """
        liveline: 1
        activities:
          - name: match
            attributes-type: MatchAttributes
            content-state: { score: 0, phase: pre, eta: !date +10m, note: null }
            beats:
        """

    @Test func yamlSyntaxErrorsAreLocated() {
        expectError("liveline: 1\nactivities:\n  - name: [unclosed\n", at: 4, 1, contains: "YAML syntax")
        expectError("liveline: 1\n\tactivities: []\n", at: 2, 1, contains: "YAML syntax")
    }

    @Test func duplicateKeysAreLocated() {
        expectError("liveline: 1\nliveline: 1\n" + Self.activities, at: 1, 1, contains: "duplicate key 'liveline'")
    }

    @Test func unknownKeysSuggestTheNearestKnownOne() {
        expectError(
            Self.head + "\n      - at: 5m\n        priorty: high\n        set: { score: 1 }\n", at: 8, 9,
            contains: "unknown key 'priorty' in beat", "did you mean 'priority'?")
        // The misspelt required key is reported once, as the typo, not also as missing.
        expectError(
            """
            liveline: 1
            activities:
              - name: match
                atributes-type: MatchAttributes
                content-state: { score: 0 }
            """, at: 4, 5, contains: "unknown key 'atributes-type' in activity; did you mean 'attributes-type'?")
        expectError(
            "liveline: 1\nfoo: 1\n" + Self.activities, at: 2, 1, contains: "unknown key 'foo'",
            "expected one of: liveline, name")
    }

    @Test func badDurationsSayWhatADurationLooksLike() {
        expectError(
            Self.head + "\n      - at: 5 minutes\n        set: { score: 1 }\n", at: 7, 13,
            contains: "expected the beat's time (at) as a duration like 90s, 23m, 1h05m10s or 250ms, found '5 minutes'")
        expectError(
            "liveline: 1\npolicy: { min-interval: fast }\n" + Self.activities, at: 2, 25, contains: "min-interval",
            "found 'fast'")
    }

    @Test func aPatchThatChangesAFieldsTypeIsAnError() {
        expectError(
            Self.head + "\n      - at: 5m\n        set: { score: \"one\" }\n", at: 8, 23,
            contains: "'score' is an integer (set by content-state at 5:22), but this patch sets a string", "would fail"
        )
        expectError(
            Self.head + "\n      - at: 5m\n        set: { eta: 5 }\n", at: 8, 21, contains: "'eta' is a date",
            "sets an integer")
    }

    @Test func anOptionalFieldIsFixedByItsFirstValue() {
        expectError(
            Self.head + "\n      - at: 5m\n        set: { note: hello }\n      - at: 6m\n        set: { note: 3 }\n",
            at: 10, 22,
            contains: "'note' is a string (set by its first value at 8:22)", "sets an integer")
        expectError(
            Self.head + "\n      - at: 5m\n        set: { score: null }\n", at: 8, 23, contains: "null", "not optional")
    }

    @Test func aPatchToAFieldThatDoesNotExistIsAnError() {
        expectError(
            Self.head + "\n      - at: 5m\n        set: { scroe: 1 }\n", at: 8, 16,
            contains: "content-state has no field 'scroe'; did you mean 'score'?")
    }

    @Test func aBeatAfterTheEndIsAnError() {
        expectError(
            Self.head + "\n      - at: 50m\n        end: true\n      - at: 55m\n        set: { score: 1 }\n", at: 9, 9,
            contains: "this beat at 55m comes after the end at 50m (line 7)", "nothing is sent after the end")
        expectError(
            Self.head
                + "\n      - at: 50m\n        end: true\n      - every: 1m\n        to: 60m\n        set: { score: \"{{ n }}\" }\n",
            at: 9, 9,
            contains: "at 1h comes after the end at 50m")
    }

    @Test func anActivityLongerThanEightHoursWithoutAnEndIsAnError() {
        expectError(
            Self.head + "\n      - at: 8h30m\n        set: { score: 1 }\n", at: 7, 9,
            contains: "this beat at 8h30m is past 8h and the activity has no end", "add an end beat before then")
        expectError(
            Self.head + "\n      - at: 9h\n        end: true\n", at: 7, 9,
            contains: "the end at 9h is after 8h (max-duration)")
    }

    @Test func aStartWithoutAnAlertIsAnError() {
        expectError(
            Self.head + "\n      - at: 0\n        start: true\n", at: 8, 9,
            contains: "a start needs an alert", "drops the start")
    }

    @Test func aPayloadOver4096BytesIsAnError() {
        let long = String(repeating: "x", count: 4100)
        expectError(
            Self.head + "\n      - id: essay\n        at: 5m\n        set: { phase: \"\(long)\" }\n", at: 7, 9,
            contains: "the update push at +05:00: payload is 4240 bytes, over APNs's limit of 4096")
    }

    @Test func templatesThatNameNothingAreErrors() {
        expectError(
            Self.head + "\n      - at: 5m\n        set: { phase: \"Goal {{ minutes }}'\" }\n", at: 8, 32,
            contains: "template names 'minutes', which is not defined", "did you mean 'minute'?")
        expectError(
            Self.head + "\n      - at: 5m\n        set: { score: \"{{ state.scroe + 1 }}\" }\n", at: 8, 27,
            contains: "template names 'state.scroe', but content-state has no field 'scroe'; did you mean 'score'?")
        expectError(
            Self.head + "\n      - at: 5m\n        set: { score: \"{{ n }}\" }\n", at: 8, 27,
            contains: "'n' counts the occurrences of a repeating beat")
        expectError(
            Self.head + "\n      - at: 5m\n        set: { phase: \"{{ input.status }}\" }\n", at: 8, 27,
            contains: "'input.status' is only set when the bridge triggers a beat")
        expectError(
            Self.head + "\n      - at: 5m\n        set: { phase: \"{{ 1 + }}\" }\n", at: 8, 31,
            contains: "expected a number, a string, a name or '(' in template, found the end of the template")
    }

    @Test func unknownTagsAndBadDatesSayWhatIsExpected() {
        expectError(
            Self.head + "\n      - at: 5m\n        set: { eta: !date soon }\n", at: 8, 21,
            contains: "expected a date like +25m")
        expectError(
            Self.head + "\n      - at: 5m\n        set: { eta: !when +5m }\n", at: 8, 21,
            contains: "unknown tag '!when'")
    }

    @Test func structureErrorsAreLocated() {
        expectError("liveline: 2\n" + Self.activities, at: 1, 11, contains: "expected liveline: 1")
        expectError("liveline: 1\nactivities: {}\n", at: 2, 13, contains: "expected activities as a list")
        expectError("liveline: 1\nactivities: []\n", at: 2, 13, contains: "activities is empty")
        expectError(Self.head + "\n      - set: { score: 1 }\n", at: 7, 9, contains: "a beat needs 'at'")
        expectError(
            Self.head + "\n      - at: 5m\n        every: 1m\n        set: { score: 1 }\n", at: 8, 9,
            contains: "'every' belongs to repeating beats")
        expectError(
            Self.head + "\n      - at: 5m\n        chance: 1.5\n", at: 8, 17, contains: "probability from 0 to 1")
        expectError(
            Self.head + "\n      - at: 5m\n        priority: urgent\n", at: 8, 19,
            contains: "expected priority as 'high' or 'low'")
        expectError(
            Self.head
                + "\n      - { id: a, at: 1m, set: { score: 1 } }\n      - { id: a, at: 2m, set: { score: 2 } }\n",
            at: 8, 9, contains: "already has the id 'a'")
    }

    @Test func everyErrorInAFileIsReportedInOneRun() {
        let found = errors(
            Self.head + "\n      - at: 5 minutes\n        priorty: high\n      - at: 6m\n        set: { scroe: 1 }\n")
        #expect(found.count == 3)
    }

    @Test func moreHighPriorityBeatsThanTheBudgetIsAWarning() throws {
        let loaded = try load(
            scenario(
                policy: "budget: 2",
                beats: """
                    - { id: a, at: 1m, priority: high, set: { score: 1 } }
                    - { id: b, at: 2m, priority: high, set: { score: 2 } }
                    - { id: c, at: 3m, priority: high, set: { score: 3 } }
                    - { id: d, at: 4m, priority: high, set: { score: 4 } }
                    - { at: 5m, end: true }
                    """))
        #expect(loaded.warnings.count == 1)
        let warning = try #require(loaded.warnings.first)
        #expect(warning.severity == .warning)
        #expect(warning.message.contains("2 high-priority pushes of 'match' are over the budget of 2 per hour"))
        #expect(warning.location.line == 17)
    }

    @Test func anActivityWithoutAnEndIsAWarning() throws {
        let loaded = try load(scenario(beats: "- { at: 1m, set: { score: 1 } }"))
        #expect(loaded.warnings.map(\.message) == ["no beat ends 'match'; the engine will end it at 8h (max-duration)"])
    }

    @Test func aMissingFileSaysSo() {
        #expect(throws: ScenarioError.self) { try ScenarioLoader().load(file: "/nonexistent/x.yaml") }
        do {
            _ = try ScenarioLoader().load(file: "/nonexistent/x.yaml")
        } catch {
            #expect(error.description == "/nonexistent/x.yaml:1:1: error: the file does not exist")
        }
    }
}

@Suite struct ScenarioSizeLimitTests {
    @Test func aFileOverTheLimitIsRefusedWithItsSize() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-big-\(UUID().uuidString).yaml"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let comment = "# " + String(repeating: "x", count: 1022) + "\n"
        try String(repeating: comment, count: ScenarioLoader.maxFileBytes / 1024 + 10).write(
            toFile: path, atomically: false, encoding: .utf8)
        #expect {
            try ScenarioLoader().load(file: path)
        } throws: { error in
            let message = (error as? ScenarioError)?.diagnostics.first?.message ?? ""
            return message.contains("the file is 8") && message.contains("MB; a scenario may be at most 8 MB")
        }
    }
}
