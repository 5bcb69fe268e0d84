import Liveline
import Testing

/// The `presentation:` block: read into texts of literal parts and placeholders, and every
/// mistake located at its `file:line:column`.
@Suite struct PresentationTests {
    static func yaml(_ presentation: String) -> String {
        """
        liveline: 1
        activities:
          - name: match
            attributes-type: MatchAttributes
            attributes: { homeTeam: Northbridge, awayTeam: Harbour }
            content-state: { homeScore: 0, awayScore: 0, kickoff: !date +10m, detail: { minute: 1 } }
            presentation:
        \(presentation.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
        """
    }

    func single(_ presentation: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Diagnostic? {
        let found = errors(Self.yaml(presentation), file: "p.yaml")
        #expect(
            found.count == 1, "expected one error, got:\n\(found.map(\.description).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        return found.first
    }

    @Test func readsEveryRegion() throws {
        let loaded = try load(
            Self.yaml(
                """
                tint: "#34c759"
                icon: soccerball
                lock-screen:
                  title: "{{ attributes.homeTeam }} v {{ attributes.awayTeam }}"
                  lines: ["{{ state.homeScore }} – {{ state.awayScore }}", "Kick-off {{ state.kickoff | countdown }}"]
                compact-leading: "{{ state.homeScore }}–{{ state.awayScore }}"
                compact-trailing: "{{ state.detail.minute }}'"
                minimal: "{{ state.homeScore }}"
                expanded: { leading: "{{ attributes.homeTeam | upper }}", trailing: "{{ state.kickoff | time }}", center: vs, bottom: "{{ state.awayScore }}" }
                """))
        let presentation = try #require(loaded.scenario.activities.first?.presentation)
        #expect(presentation.tint == "#34c759")
        #expect(presentation.icon == "soccerball")
        #expect(
            presentation.lockScreenTitle?.parts == [
                .field(scope: "attributes", path: ["homeTeam"], format: nil), .text(" v "),
                .field(scope: "attributes", path: ["awayTeam"], format: nil),
            ])
        #expect(presentation.lockScreenLines.count == 2)
        #expect(
            presentation.lockScreenLines.last?.parts.last
                == .field(scope: "state", path: ["kickoff"], format: .countdown))
        #expect(
            presentation.compactTrailing?.parts == [
                .field(scope: "state", path: ["detail", "minute"], format: nil), .text("'"),
            ])
        #expect(
            presentation.expandedLeading?.parts == [.field(scope: "attributes", path: ["homeTeam"], format: .upper)])
        #expect(presentation.expandedCenter?.parts == [.text("vs")])
    }

    @Test func withoutTheBlockThereIsNone() throws {
        let loaded = try load(scenario(beats: "- at: 1m\n  end: true"))
        #expect(loaded.scenario.activities.first?.presentation == nil)
    }

    @Test func anUnknownFieldIsLocatedWithASuggestion() throws {
        let error = try #require(single("compact-leading: \"Score {{ state.homeScor }}\""))
        #expect(error.location == SourceLocation(file: "p.yaml", line: 8, column: 31))
        #expect(error.message.contains("the content-state has no field 'homeScor'"))
        #expect(error.message.contains("did you mean 'homeScore'?"))
    }

    @Test func otherMistakesAreLocated() throws {
        let format = try #require(single("minimal: \"{{ state.kickoff | countdwn }}\""))
        #expect(format.location.line == 8)
        #expect(
            format.message.contains("unknown format 'countdwn'") && format.message.contains("did you mean 'countdown'?")
        )

        let scope = try #require(single("minimal: \"{{ homeScore }}\""))
        #expect(scope.message.contains("expected a placeholder like {{ state.minute }}"))

        let open = try #require(single("minimal: \"{{ state.homeScore\""))
        #expect(open.message.contains("no closing '}}'"))

        let tint = try #require(single("tint: greenish"))
        #expect(tint.location == SourceLocation(file: "p.yaml", line: 8, column: 13))
        #expect(tint.message.contains("expected the tint as #rgb, #rrggbb or one of"))

        let key = try #require(single("lock-screen: { titel: x }"))
        #expect(key.message.contains("unknown key 'titel' in lock-screen; did you mean 'title'?"))

        let lines = try #require(single("lock-screen: { lines: one }"))
        #expect(lines.message.contains("expected lines as a list"))

        let nested = try #require(single("minimal: \"{{ state.homeScore.value }}\""))
        #expect(nested.message.contains("state.homeScore is not a mapping"))
    }
}
