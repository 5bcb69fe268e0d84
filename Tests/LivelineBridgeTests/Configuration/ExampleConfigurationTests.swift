import Liveline
import Testing
@testable import LivelineBridge

/// Scenarios/bridge.example.yaml loads, and says what its comments say.
@Suite struct ExampleConfigurationTests {
    @Test func theExampleLoads() throws {
        let configuration = try loadExample()
        #expect(configuration.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(configuration.store == .sqlite(path: "liveline-bridge.sqlite"))
        #expect(configuration.apns == nil)
        #expect(configuration.bodyLimit == 256 * 1024)
        #expect(configuration.sources.map(\.name) == ["doordash", "uber", "orders"])
        #expect(configuration.apiKeys.count == 1)
        #expect(configuration.apiKeys.first?.matches("demo-key") == true)
        #expect(configuration.apiKeys.first?.matches("demo-key ") == false)
    }

    @Test func doorDashIsOrderedByStatusAndHasNoEventID() throws {
        let source = try #require(try loadExample().source(named: "doordash"))
        #expect(source.scheme == .headerValue(header: "Authorization", values: ["Bearer dd-demo"]))
        #expect(source.eventID == nil)
        #expect(source.eventType == .body(JSONPointer(tokens: ["event_name"])))
        guard case .statusRank(let statuses) = source.order?.kind else {
            Issue.record("expected a status-rank order, found \(String(describing: source.order))")
            return
        }
        #expect(statuses.first == "DASHER_CONFIRMED" && statuses.count == 6)
        #expect(source.scenario.activities[source.activity].name == "order-58213")
        #expect(source.events["DASHER_PICKED_UP"]?.trigger?.beat == "picked-up")
        #expect(source.events["DELIVERY_CANCELLED"]?.end == .some(.immediate))
        #expect(source.unknownEvents == .ignore)
    }

    @Test func uberIsAnHMACOfTheBodyAndStandardWebhooksRejectsUnknownEvents() throws {
        let configuration = try loadExample()
        let uber = try #require(configuration.source(named: "uber"))
        #expect(uber.scheme == .hmac(GenericHMACConfiguration(header: "x-uber-signature", secrets: ["uber-demo"])))
        #expect(uber.order == OrderRule(location: .body(JSONPointer(tokens: ["created"])), kind: .timestamp))
        #expect(uber.rateLimit == RateLimit(perSecond: 100, burst: 500))
        #expect(configuration.source(named: "doordash")?.rateLimit == nil)
        let orders = try #require(configuration.source(named: "orders"))
        #expect(orders.eventID == .header("webhook-id"))
        #expect(orders.unknownEvents == .reject)
        #expect("\(orders.scheme)".contains("whsec_") == false)
    }

    @Test func aDateFieldReadsDatesWithoutAs() throws {
        let source = try #require(try loadExample().source(named: "doordash"))
        let set = try #require(source.events["DASHER_CONFIRMED"]?.change?.set.first)
        #expect(set == FieldRule(path: ["eta"], value: .read(.body(JSONPointer(tokens: ["dropoff_time_estimated"])), as: .date)))
    }
}
