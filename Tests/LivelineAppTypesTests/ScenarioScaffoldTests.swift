import Liveline
import LivelineAppTypes
import Testing

@Suite("Starter scenarios from the app's types")
struct ScenarioScaffoldTests {
    @Test("the scaffold of each example type names every field with its Swift type, loads, and decodes in the app")
    func examples() throws {
        let types = try AppSourceFiles.load([ExampleAppTests.path("Scenarios/app")])
        let scaffold = ScenarioScaffold(types: types)
        for attributes in types.activityAttributes {
            let yaml = scaffold.yaml(for: attributes)
            let loaded = try ScenarioLoader().load(yaml: yaml, file: "scaffold.yaml")
            #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
            let diagnostics = ScenarioAppCheck(types: types).diagnostics(for: loaded.scenario)
            #expect(diagnostics.isEmpty, "\(attributes.name): \(diagnostics)\n\(yaml)")
        }
        let delivery = scaffold.yaml(for: try #require(types.attributes(named: "DeliveryAttributes")))
        #expect(delivery.contains("    attributes-type: DeliveryAttributes"))
        #expect(delivery.contains("      status: \"placed\""))
        #expect(delivery.contains("# Status: placed, preparing, arriving, delivered, on-the-way"))
        #expect(delivery.contains("      eta: !date +30m"))
        #expect(delivery.contains("      window: !daterange [+0m, +30m]"))
        #expect(delivery.contains("      courierName: null"))
        #expect(delivery.contains("# String? (may be null)"))
        #expect(
            ScenarioScaffold.fileStem(for: try #require(types.attributes(named: "MatchAttributes")))
                == "match-attributes")
    }

    @Test("nested structs become nested mappings; renamed keys and let constants follow the decoder")
    func nestedAndRenamed() throws {
        let types = try AppSourceFiles.load([DecoderAgreementTests.corpusFile])
        let ride = try #require(types.attributes(named: "RideAttributes"))
        let yaml = ScenarioScaffold(types: types).yaml(for: ride)
        #expect(yaml.contains("      driver_name: \"\""))
        #expect(!yaml.contains("kind:"))
        #expect(yaml.contains("      driver:"))
        #expect(yaml.contains("        rating: 0.0"))
        #expect(yaml.contains("      tripID: \"00000000-0000-0000-0000-000000000000\""))
        let loaded = try ScenarioLoader().load(yaml: yaml, file: "ride.yaml")
        let errors = ScenarioAppCheck(types: types).diagnostics(for: loaded.scenario).filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors)\n\(yaml)")
    }

    @Test(
        "file names: words split at case changes, acronyms kept whole",
        arguments: [
            ("MatchAttributes", "match-attributes"), ("PETLLiveActivityAttributes", "petl-live-activity-attributes"),
            ("HTTPStatus2Attributes", "http-status2-attributes"),
            ("Include_Live_ActivityAttributes", "include-live-activity-attributes"),
            ("iOSWidgetAttributes", "i-os-widget-attributes"),
        ])
    func fileStems(_ name: String, _ stem: String) {
        #expect(ScenarioScaffold.fileStem(named: name) == stem)
    }

    @Test("a hand-written decoder's scaffold writes the keys of its CodingKeys, typed where a property says")
    func handWritten() throws {
        let types = try AppSourceFiles.load([PatternCorpusTests.path("hand-written-decoder", "app")])
        let yaml = ScenarioScaffold(types: types).yaml(for: try #require(types.attributes(named: "ScoreAttributes")))
        #expect(
            yaml.contains(
                "      # ContentState decodes itself (init(from:) at ScoreAttributes.swift:13): not checked; these are its CodingKeys"
            ), "\(yaml)")
        #expect(yaml.contains("      h: 0"))
        #expect(yaml.contains("      a: 0"))
    }
}
