import Foundation
import Liveline
import LivelineAppTypes
import Testing

/// `Scenarios/app/` is the app the example stories are written for.
@Suite("The example app's types and the example scenarios")
struct ExampleAppTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func check(_ scenario: String) throws -> [Diagnostic] {
        let types = try AppSourceFiles.load([path("Scenarios/app")])
        let loaded = try ScenarioLoader().load(file: path(scenario))
        return ScenarioAppCheck(types: types).diagnostics(for: loaded.scenario)
    }

    @Test("the example app declares MatchAttributes and DeliveryAttributes")
    func exampleTypes() throws {
        let types = try AppSourceFiles.load([Self.path("Scenarios/app")])
        #expect(types.activityAttributes.map(\.name) == ["DeliveryAttributes", "MatchAttributes"])
    }

    @Test(
        "football.yaml and delivery.yaml decode in the example app, every beat included, without a warning",
        arguments: ["Scenarios/football.yaml", "Scenarios/delivery.yaml"])
    func examplesDecode(_ scenario: String) throws {
        let diagnostics = try Self.check(scenario)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
    }

    @Test("evening.yaml writes a different MatchAttributes: each difference is located and names the Swift line")
    func eveningDiffers() throws {
        let errors = try Self.check("Scenarios/evening.yaml").filter { $0.severity == .error }
        #expect(!errors.isEmpty)
        let minute = try #require(errors.first { $0.message.contains("content-state.minute is missing") })
        #expect(minute.location.file.hasSuffix("Scenarios/evening.yaml"))
        #expect(minute.message.contains("(MatchAttributes.swift:10: var minute: Int)"))
    }
}
