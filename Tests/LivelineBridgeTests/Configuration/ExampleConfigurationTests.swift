import Liveline
import Testing
@testable import LivelineBridge

/// Scenarios/bridge.example.yaml loads, and says what its comments say.
@Suite struct ExampleConfigurationTests {
    @Test func theExampleLoads() throws {
        let configuration = try loadExample()
        #expect(configuration.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        // No store: a file of its own under the state directory.
        let state = try #require(configuration.stateDirectory)
        guard case .sqlite(let path) = configuration.store else { Issue.record("\(configuration.store)"); return }
        #expect(path.hasPrefix(state.path + "/bridge.example-") && path.hasSuffix(".sqlite"))
        #expect(configuration.apns == nil)
        #expect(configuration.bodyLimit == 256 * 1024)
        #expect(configuration.sources.map(\.name) == ["doordash", "uber", "orders"])
        #expect(configuration.apiKeys.count == 1)
        #expect(configuration.apiKeys.first?.matches("demo-key") == true)
        #expect(configuration.apiKeys.first?.matches("demo-key ") == false)
    }

    /// `bridge record` and `bridge dead-letters` read the rules and stories, not the secrets:
    /// without them in the environment the configuration still loads for them, and a source
    /// whose secret is missing refuses every webhook; `serve` and `send` still require them.
    @Test func withoutItsSecretsTheConfigurationLoadsForTheStoreCommandsOnly() throws {
        let file = scenariosDirectory + "/bridge.example.yaml"
        let strict = #expect(throws: BridgeConfigurationError.self) {
            try BridgeConfigurationLoader(environment: [:]).load(file: file)
        }
        #expect(strict?.errors.count == 3, "one error per secret: \(strict?.errors.map(\.message) ?? [])")

        let loaded = try BridgeConfigurationLoader(environment: [:], readsSecrets: false).load(file: file)
        #expect(loaded.sources.map(\.name) == ["doordash", "uber", "orders"])
        let orders = try #require(loaded.source(named: "orders"))
        #expect(orders.verifier is SecretsNotLoaded)
        #expect(throws: WebhookVerificationError.wrongCredentials) {
            try orders.verifier.verify(body: Array("{}".utf8), headers: [:], url: "", now: 0)
        }
        #expect(orders.events == (try loadExample()).source(named: "orders")?.events)

        let partly = try BridgeConfigurationLoader(environment: ["UBER_SIGNING_KEY": "uber-demo"], readsSecrets: false)
            .load(file: file)
        #expect(partly.source(named: "uber")?.verifier is GenericHMAC, "a secret that is set is used")
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
        #expect(source.scenario.activities[source.activityIndex].name == "order-58213")
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
        #expect(
            set
                == FieldRule(
                    path: ["eta"], value: .read(.body(JSONPointer(tokens: ["dropoff_time_estimated"])), as: .date)))
    }
}
