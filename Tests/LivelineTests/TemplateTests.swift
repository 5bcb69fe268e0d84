import Liveline
import Testing

/// The `{{ }}` expression language, through the loader and the engine.
@Suite struct TemplateTests {
    func value(
        _ template: String, state: String = "{ score: 0, text: \"\", ratio: 0.0 }", field: String = "score"
    ) throws -> StateValue? {
        let run = try plan(
            scenario(
                state: state,
                beats: """
                    - { id: t, every: 1m, count: 1, set: { \(field): "\(template)" } }
                    - { id: final, at: 2m, end: true }
                    """))
        return run.entries.first?.state[field]
    }

    @Test(
        "arithmetic follows the usual precedence and keeps integers whole",
        arguments: [
            ("{{ 1 + 2 * 3 }}", 7), ("{{ (1 + 2) * 3 }}", 9), ("{{ 14 - 2 * n }}", 12), ("{{ 7 / 2 }}", 3),
            ("{{ 7 % 4 }}", 3),
            ("{{ -n + 5 }}", 4), ("{{ minute * 60 + second }}", 120),
        ])
    func arithmetic(template: String, expected: Int) throws {
        #expect(try value(template) == .int(expected))
    }

    @Test func decimalsMakeTheResultDecimal() throws {
        #expect(try value("{{ n / 4.0 }}", field: "ratio") == .double(0.25))
    }

    func number(_ value: StateValue) -> Double? {
        switch value {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    @Test(
        "in a field declared as a decimal, / divides as decimals",
        arguments: [
            ("{{ 7 / 2 }}", 3.5), ("{{ n / 4 }}", 0.25), ("{{ -(3 / 2) }}", -1.5), ("{{ pick(1 / 8, 1 / 8) }}", 0.125),
            ("{{ 2 * 3 }}", 6),
        ])
    func declaredDecimals(template: String, expected: Double) throws {
        let found = try value(template, field: "ratio")
        #expect(found.flatMap(number) == expected, "\(String(describing: found))")
    }

    @Test func aRandomTenthFillsADecimalFieldWithTenths() throws {
        let run = try plan(
            scenario(
                state: "{ score: 0, ratio: 0.0 }",
                beats: """
                    - { every: 1m, count: 60, set: { ratio: "{{ random(1, 40) / 10 }}" } }
                    - { id: final, at: 61m, end: true }
                    """))
        let values = run.entries.compactMap { $0.state["ratio"] }.dropFirst()
        #expect(values.count >= 50)
        #expect(
            values.allSatisfy { if case .double(let d) = $0 { (0.1...4.0).contains(d) } else { false } }, "\(values)")
        #expect(values.contains { number($0).map { $0 != $0.rounded() } == true }, "no tenths in \(values)")
    }

    @Test func wholeNumberFieldsAndTextKeepWholeDivision() throws {
        #expect(try value("{{ 7 / 2 }}") == .int(3))
        #expect(try value("{{ 7 / 2 }} km", field: "text") == .string("3 km"))
        #expect(try value("{{ 7 / 2.0 }} km", field: "text") == .string("3.5 km"))
    }

    @Test func textJoinsValuesAndPlusJoinsStrings() throws {
        #expect(try value("Goal {{ minute }}' by {{ activity }}", field: "text") == .string("Goal 1' by match"))
        #expect(try value("{{ 'n=' + n }}", field: "text") == .string("n=1"))
    }

    @Test(
        "broken templates are located at the offending character",
        arguments: [
            ("{{ n", "'{{' is never closed"), ("x }}", "'}}' without an opening '{{'"),
            ("{{ n + }}", "expected a number"),
            ("{{ roll(1, 2) }}", "unknown function 'roll'"), ("{{ random(1) }}", "random takes two whole numbers"),
            ("{{ 'open }}", "string is never closed"), ("{{ n # 2 }}", "unexpected character '#'"),
            (
                "{{ " + String(repeating: "(", count: 40) + "1" + String(repeating: ")", count: 40) + " }}",
                "nested more than 32 levels deep"
            ),
            ("{{ " + String(repeating: "- ", count: 40) + "1 }}", "nested more than 32 levels deep"),
            ("{{ " + String(repeating: "1 + ", count: 300) + "1 }}", "a template expression may have at most 1000"),
        ])
    func broken(template: String, message: String) {
        let found = errors(
            scenario(
                beats: """
                    - { id: t, every: 1m, count: 1, set: { phase: "\(template)" } }
                    - { id: final, at: 2m, end: true }
                    """))
        #expect(found.count == 1)
        #expect(found.first?.message.contains(message) == true, "\(found)")
    }

    @Test func aTypeChangeHiddenInATemplateIsCaught() {
        let found = errors(
            scenario(
                beats: """
                    - { id: t, at: 1m, set: { score: "{{ state.phase + 1 }}" } }
                    - { id: final, at: 2m, end: true }
                    """))
        #expect(found.first?.message.contains("'score' is an integer") == true)
        #expect(found.first?.message.contains("sets a string") == true)
    }
}
