import Foundation
import Liveline
import LivelineAppTypes
import Testing

/// The app patterns of `Corpus/Patterns`, one folder each: the app's Swift source as real apps
/// write it (`app/`, split across folders where they split it), a scenario that fits and one
/// that does not, and here every diagnostic expected, exactly, located in the scenario.
@Suite("Real-world app patterns: what fits, what does not, and exactly what is said")
struct PatternCorpusTests {
    struct Pattern: Sendable, CustomTestStringConvertible {
        var name: String
        /// `--app-type` choices.
        var choices: [String] = []
        /// The summary verdict for fits.yaml.
        var fitsVerdict = "decodes in the app"
        /// fits.yaml's diagnostics, as `line:column: severity: message`.
        var fitsDiagnostics: [String] = []
        /// The summary verdict for fails.yaml: an error unless it only writes what the app ignores.
        var failsVerdict: String?
        /// fails.yaml's diagnostics, as `line:column: severity: message`.
        var failsDiagnostics: [String]
        var testDescription: String { name }
    }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Corpus/Patterns")

    static func path(_ pattern: String, _ file: String) -> String {
        folder.appendingPathComponent(pattern).appendingPathComponent(file).path
    }

    static func types(_ pattern: Pattern) throws -> AppTypes {
        try AppSourceFiles.load([path(pattern.name, "app")], choices: pattern.choices)
    }

    static func report(_ pattern: Pattern, _ file: String) throws -> ScenarioAppReport {
        let scenario = try ScenarioLoader().load(file: path(pattern.name, file)).scenario
        return ScenarioAppCheck(types: try types(pattern)).report(for: scenario)
    }

    static func lines(_ report: ScenarioAppReport) -> [String] {
        report.diagnostics.map { "\($0.location.line):\($0.location.column): \($0.severity.rawValue): \($0.message)" }
    }

    static let handWrittenWarning =
        "9:7: warning: content-state: ScoreAttributes.ContentState decodes itself (a hand-written init(from:) at ScoreAttributes.swift:13); what it accepts is known only by running it, so it is not checked; its CodingKeys name \"a\", \"h\" (ScoreAttributes.swift:13: init(from decoder: Decoder))"
    static let notChecked =
        "not fully checked against the app: 1 value only running the app can tell about (warnings above)"

    static let patterns: [Pattern] = [
        Pattern(
            name: "synthesized-struct",
            failsDiagnostics: [
                "10:7: error: content-state.minutesLeft is \"soon\", but the app decodes a number (Int) (DeliveryAttributes.swift:7: var minutesLeft: Int)"
            ]),
        Pattern(
            name: "coding-keys",
            failsDiagnostics: [
                "10:7: error: content-state.etaMinutes is written, but CodingKeys renames it: the app decodes it from \"eta_minutes\" (RideAttributes.swift:8: enum CodingKeys: String, CodingKey)"
            ]),
        Pattern(
            name: "split-folders",
            failsDiagnostics: [
                "14:35: error: content-state.phase is \"halftime\", which is not a raw value of MatchAttributes.Phase (one of \"pre-match\", \"live\", \"full-time\") (MatchState.swift:6: var phase: Phase)",
                "14:54: error: content-state.scorers[0].minute is missing, but the app's MatchAttributes.Scorer requires it (Phase.swift:10: var minute: Int)",
            ]),
        Pattern(
            name: "collections",
            failsDiagnostics: [
                "9:7: error: content-state.fare is \"12.50\", but the app decodes a number (Decimal) (TripAttributes.swift:6: var fare: Decimal)",
                "10:7: error: content-state.window has its lower date after its upper one: ClosedRange<Date> fails to decode (TripAttributes.swift:7: var window: ClosedRange<Date>)",
                "11:18: error: content-state.tallies.stops is \"two\", but the app decodes a number (Int) (TripAttributes.swift:8: var tallies: [String: Int])",
                "12:7: error: content-state.stops[0].done is missing, but the app's TripAttributes.Stop requires it (TripAttributes.swift:15: var done: Bool)",
            ]),
        Pattern(
            name: "enum-without-raw-values",
            failsDiagnostics: [
                "9:7: error: content-state.status is \"preparing\", but OrderAttributes.Status has no raw values: its synthesized Codable decodes an object naming one case, like {\"received\": {}} (one of received, preparing, ready); write status: { preparing: {} } (OrderAttributes.swift:5: var status: Status)",
                "14:7: error: content-state.status has no key naming a case of OrderAttributes.Status (one of received, preparing, ready), so it does not decode (OrderAttributes.swift:5: var status: Status)",
            ]),
        Pattern(
            name: "enum-associated-values",
            failsDiagnostics: [
                "11:40: error: content-state.step.assigned._1 is 300, outside the range of UInt8 (CourierAttributes.swift:11: case assigned(name: String, UInt8))",
                "15:28: error: content-state.step.delivered.at is \"20:15\", but a Date decodes only from a number of seconds since 2001, not text; write it as !date (CourierAttributes.swift:12: case delivered(at: Date, signedBy: String?))",
                "19:15: error: content-state.step.assigned._1 is missing, but the app's CourierAttributes.Step.assigned requires it (CourierAttributes.swift:11: case assigned(name: String, UInt8))",
            ]),
        Pattern(
            name: "hand-written-decoder", fitsVerdict: notChecked, fitsDiagnostics: [handWrittenWarning],
            failsDiagnostics: [
                "7:19: error: attributes.league is 1, but the app decodes a String (ScoreAttributes.swift:20: var league: String)",
                handWrittenWarning,
                "9:7: warning: content-state.home is not a key of ScoreAttributes.ContentState's CodingKeys, so its init(from:) cannot read it by name (ScoreAttributes.swift:8: enum CodingKeys: String, CodingKey)",
            ]),
        Pattern(
            name: "protocol-refinement",
            failsDiagnostics: [
                "10:7: error: content-state.progress is \"half\", but the app decodes a number (Double) (DefaultAttributes.swift:4: var progress: Double)"
            ]),
        Pattern(
            name: "typealias-and-extension",
            failsDiagnostics: [
                "10:7: error: content-state.outs is -1, outside the range of UInt8 (GameAttributes+Live.swift:4: var outs: UInt8)"
            ]),
        Pattern(
            name: "aliases-and-numbers",
            failsDiagnostics: [
                "9:7: error: content-state.elapsed is \"12:30\", but the app decodes a number (TimeInterval) (WorkoutAttributes.swift:7: var elapsed: TimeInterval)",
                "10:7: error: content-state.effort is 70000, beyond the range of Float16 (WorkoutAttributes.swift:8: var effort: Float16)",
                "12:7: error: content-state.position is an object, but CGPoint decodes from a list of 2 (CGFloat, CGFloat) (WorkoutAttributes.swift:10: var position: CGPoint)",
                "13:7: error: content-state.floor is 40000, outside the range of Int16 (WorkoutAttributes.swift:11: var floor: Int16)",
                "14:7: error: content-state.heartRate is 70000, outside the range of UInt16 (WorkoutAttributes.swift:12: var heartRate: UInt16)",
            ]),
        Pattern(
            name: "syntax-error",
            fitsVerdict:
                "not fully checked against the app: the app's sources have 1 syntax error, which may hide fields",
            failsDiagnostics: [
                "10:7: error: content-state.paused is \"no\", but the app decodes a Bool (TimerAttributes.swift:7: var paused: Bool)"
            ]),
        Pattern(
            name: "duplicate-names", choices: ["Widget.DeliveryAttributes"],
            failsDiagnostics: [
                "8:7: error: content-state.minutesLeft is missing, but the app's DeliveryAttributes.ContentState requires it (DeliveryAttributes.swift:6: var minutesLeft: Int)",
                "9:7: warning: content-state.eta is ignored by the app: DeliveryAttributes.ContentState has no such key (DeliveryAttributes.swift:4: struct ContentState: Codable, Hashable)",
            ]),
        Pattern(
            name: "if-inside-body",
            failsDiagnostics: [
                "9:7: error: content-state.boardingGroup is missing, but the app's FlightAttributes.ContentState requires it (FlightAttributes.swift:7: var boardingGroup: Int)"
            ]),
        Pattern(
            name: "generics",
            failsDiagnostics: [
                "8:29: error: content-state.home.value is 0.5, a decimal, but the app decodes Int, a whole number (ScoreAttributes.swift:6: var value: Value)",
                "9:29: error: content-state.clock.value is \"third\", which is not a raw value of ScoreAttributes.Phase (one of \"first\", \"second\", \"extra\") (ScoreAttributes.swift:6: var value: Value)",
            ]),
        Pattern(
            name: "renamed-optional", failsVerdict: "decodes in the app",
            failsDiagnostics: [
                "9:7: warning: content-state.courierNote is ignored by the app: CodingKeys renames it, so the app reads \"courier_note\" and, finding none, decodes nil (ParcelAttributes.swift:8: enum CodingKeys: String, CodingKey)"
            ]),
    ]

    /// Checks `file` of `pattern` against its app: exactly `diagnostics`, then `verdict`.
    static func check(_ pattern: Pattern, _ file: String, diagnostics: [String], verdict: String) throws {
        let checked = try report(pattern, file)
        #expect(lines(checked) == diagnostics, "\(lines(checked).map { "\"\($0)\"" }.joined(separator: ",\n"))")
        #expect(checked.verdict == verdict)
    }

    @Test("fits.yaml: the expected verdict and nothing else", arguments: patterns)
    func fits(_ pattern: Pattern) throws {
        try Self.check(pattern, "fits.yaml", diagnostics: pattern.fitsDiagnostics, verdict: pattern.fitsVerdict)
    }

    @Test("fails.yaml: every diagnostic, located, exactly", arguments: patterns)
    func fails(_ pattern: Pattern) throws {
        let errors = pattern.failsDiagnostics.filter { $0.contains(": error: ") }.count
        let verdict = pattern.failsVerdict ?? "\(errors) \(errors == 1 ? "error" : "errors") against the app's types"
        try Self.check(pattern, "fails.yaml", diagnostics: pattern.failsDiagnostics, verdict: verdict)
    }

    @Test("the scaffold of every pattern loads and has no error against its app", arguments: patterns)
    func scaffoldValidates(_ pattern: Pattern) throws {
        let types = try Self.types(pattern)
        for attributes in types.activityAttributes {
            let yaml = ScenarioScaffold(types: types).yaml(for: attributes)
            let loaded = try ScenarioLoader().load(yaml: yaml, file: "scaffold.yaml")
            let report = ScenarioAppCheck(types: types).report(for: loaded.scenario)
            #expect(report.errors == 0, "\(Self.lines(report))\n\(yaml)")
            #expect(report.verdict == pattern.fitsVerdict, "\(Self.lines(report))\n\(yaml)")
        }
    }

    @Test("a syntax error is kept with its location and the parser's message; what parses is still read")
    func syntaxErrors() throws {
        let types = try AppSourceFiles.load([Self.path("syntax-error", "app")])
        #expect(
            types.syntaxErrors.map { "\($0.location.line):\($0.location.column): \($0.message)" } == [
                "6:17: expected ':' in type annotation"
            ])
        #expect(types.syntaxErrors.first?.location.file.hasSuffix("syntax-error/app/TimerAttributes.swift") == true)
        #expect(types.attributes(named: "TimerAttributes")?.properties.map(\.name) == ["title"])
    }

    @Test(
        "a name declared in two folders: both named, the first by path used until a choice settles it; an unknown choice is an error"
    )
    func duplicates() throws {
        let app = Self.path("duplicate-names", "app")
        let types = try AppSourceFiles.load([app])
        let ambiguity = try #require(types.ambiguities.first)
        #expect(types.ambiguities.count == 1)
        #expect(ambiguity.name == "DeliveryAttributes")
        #expect(
            ambiguity.declarations.map(\.declaration.location.file) == [
                app + "/Backup/DeliveryAttributes.swift", app + "/Widget/DeliveryAttributes.swift",
            ])
        #expect(
            ambiguity.declarations.map { types.choiceName(for: $0) } == [
                "Backup.DeliveryAttributes", "Widget.DeliveryAttributes",
            ])
        let unchosen = ScenarioAppCheck(types: types).report(
            for: try ScenarioLoader().load(file: Self.path("duplicate-names", "fits.yaml")).scenario)
        #expect(
            Self.lines(unchosen).first
                == "6:22: warning: DeliveryAttributes is declared 2 times, in \(app)/Backup/DeliveryAttributes.swift:4 and \(app)/Widget/DeliveryAttributes.swift:3; checked against the first only; choose with --app-type Backup.DeliveryAttributes or --app-type Widget.DeliveryAttributes"
        )
        #expect(unchosen.verdict == "1 error against the app's types")
        for choice in ["Widget.DeliveryAttributes", "Widget/", "Widget/DeliveryAttributes.swift"] {
            let chosen = try types.choosing([choice])
            #expect(chosen.ambiguities.isEmpty, "\(choice)")
            #expect(
                chosen.attributes(named: "DeliveryAttributes")?.declaration.location.file == app
                    + "/Widget/DeliveryAttributes.swift", "\(choice)")
        }
        #expect(
            throws: AppSourceError.unknownChoice(
                "Mobile.DeliveryAttributes", candidates: ["Backup.DeliveryAttributes", "Widget.DeliveryAttributes"])
        ) {
            try types.choosing(["Mobile.DeliveryAttributes"])
        }
    }
}
