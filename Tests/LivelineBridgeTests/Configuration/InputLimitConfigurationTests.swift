import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// The keys that say how strict a bridge is with what it is sent: `body-keys`, `body-depth`,
/// and what an event with a blank id gets (`event-id: {from:, when-missing:}`).
@Suite struct InputLimitConfigurationTests {
    /// ConfigurationErrorTests' valid configuration, its source reading an event id.
    static let base = replacing(
        "    event-type: /type", with: "    event-id: /id\n    event-type: /type", in: ConfigurationErrorTests.valid)

    static func load(_ yaml: String) throws -> BridgeConfiguration {
        try BridgeConfigurationLoader().load(yaml: yaml, file: testConfigurationFile)
    }

    @Test func limitsHaveDefaultsAndCanBeSet() throws {
        #expect(try Self.load(Self.base).jsonLimits == JSONParser.Limits(depth: 64, keys: 10_000))
        let set = try Self.load(
            replacing("liveline-bridge: 1", with: "liveline-bridge: 1\nbody-keys: 500\nbody-depth: 16", in: Self.base))
        #expect(set.jsonLimits == JSONParser.Limits(depth: 16, keys: 500))
        // Every source reads its bodies with them, at ingest and when the dispatcher maps a
        // stored event again.
        #expect(set.sources.map(\.jsonLimits) == [JSONParser.Limits(depth: 16, keys: 500)])
        #expect(
            configurationErrors(
                replacing("liveline-bridge: 1", with: "liveline-bridge: 1\nbody-keys: 0", in: Self.base)
            ).map(\.message)
                == ["expected body-keys as a whole number from 1 to 10000000, found '0'"])
        #expect(
            configurationErrors(
                replacing("liveline-bridge: 1", with: "liveline-bridge: 1\nbody-depth: 513", in: Self.base)
            ).map(\.message)
                == ["expected body-depth as a whole number from 1 to 512, found '513'"])
    }

    @Test func anEventIDRefusesBlankIDsUnlessItFallsBackToTheBodyHash() throws {
        #expect(try Self.load(Self.base).sources[0].missingEventID == .refuse)
        let fallback = try Self.load(
            replacing("event-id: /id", with: "event-id: { from: /id, when-missing: body-hash }", in: Self.base))
        #expect(fallback.sources[0].eventID == .body(try JSONPointer(parsing: "/id")))
        #expect(fallback.sources[0].missingEventID == .bodyHash)
        let refuse = try Self.load(
            replacing("event-id: /id", with: "event-id: { from: header:X-Id, when-missing: refuse }", in: Self.base))
        #expect(refuse.sources[0].eventID == .header("X-Id") && refuse.sources[0].missingEventID == .refuse)

        let misspelt = configurationErrors(
            replacing("event-id: /id", with: "event-id: { from: /id, when-missing: hash }", in: Self.base))
        #expect(misspelt.count == 1 && misspelt[0].message.hasPrefix("expected when-missing as "), "\(misspelt)")
        let noFrom = configurationErrors(
            replacing("event-id: /id", with: "event-id: { when-missing: body-hash }", in: Self.base))
        #expect(noFrom.contains { $0.message.contains("'from'") }, "\(noFrom)")
    }

    @Test func raisedLimitsHoldForEveryMapperOfTheSource() throws {
        var configuration = try Self.load(Self.base)
        let filler = (0..<20_000).map { "\"k\($0)\": 0" }.joined(separator: ", ")
        let body = Array(#"{"id": "e1", "type": "note", "order": "o1", "extra": {\#(filler)}}"#.utf8)
        #expect(throws: EventMappingError.self) {
            try EventMapper(source: configuration.sources[0]).map(body: body, headers: [:])
        }
        configuration.jsonLimits.keys = 50_000
        let mapped = try EventMapper(source: configuration.sources[0]).map(body: body, headers: [:])
        #expect(mapped.eventID == "e1" && mapped.activityKey == "o1")
    }
}
