import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// Each ready-made source in Scenarios/sources/ with its sample bodies, sent through the bridge
/// as the sender sends them, and what the device shows at the end. (The Sportradar-style stream
/// source is played the same way by ``StreamEndToEndTests``.)
@Suite struct ReadyMadeSourceTests {
    @Test func doorDashDriveDeliversTheOrder() async throws {
        try await ReadyMadeBridge.with("sources/doordash.yaml") { bridge in
            let token = BridgeHarness.token(60)
            try await bridge.register("D-58213", token: token, source: "doordash")
            try await bridge.play("doordash") { _ in "doordash" }
            let shown = bridge.harness.shown(token)
            #expect(shown["status"] == .string("delivered"))
            #expect(shown["courierName"] == .string("Alex"))
            #expect(shown["message"] == .string("Enjoy your meal!"))
            #expect(bridge.harness.mock.activity(token: token)?.lifecycle == .ended)
            // DoorDash retries with the same body: acknowledged, not applied twice.
            let again = try await bridge.send("doordash", sample: try ReadyMadeBridge.samples("doordash")[2])
            #expect(again.status == 200 && again.text.contains("duplicate"))
            #expect(Self.alerts(bridge, token) == ["Your order is here"])
        }
    }

    @Test func uberDirectDeliversTheOrder() async throws {
        try await ReadyMadeBridge.with("sources/uber-direct.yaml") { bridge in
            let token = BridgeHarness.token(61)
            try await bridge.register("58213", token: token, source: "uber-direct")
            try await bridge.play("uber-direct") { _ in "uber-direct" }
            let shown = bridge.harness.shown(token)
            #expect(shown["status"] == .string("delivered"))
            #expect(shown["courierName"] == .string("Rosa"))
            #expect(bridge.harness.mock.activity(token: token)?.lifecycle == .ended)
            #expect(bridge.harness.timestamps(token).count == 5, "one push per status")
        }
    }

    @Test func shopifyOrdersAndFulfillmentEventsDeliverTheOrder() async throws {
        try await ReadyMadeBridge.with("sources/shopify.yaml") { bridge in
            let token = BridgeHarness.token(62)
            try await bridge.register("5913571409946", token: token, source: "shopify-orders")
            let statuses = try await bridge.play("shopify") {
                $0.contains("fulfillment-events") ? "shopify-fulfillments" : "shopify-orders"
            }
            #expect(statuses == [202, 202, 202, 202, 202])
            let shown = bridge.harness.shown(token)
            #expect(shown["status"] == .string("delivered"))
            #expect(bridge.harness.mock.activity(token: token)?.lifecycle == .ended)
            #expect(Self.alerts(bridge, token) == ["Almost there"])
            // orders/create has no rule: recorded, nothing pushed (paid, in transit, out for delivery, delivered).
            #expect(bridge.harness.timestamps(token).count == 4)
        }
    }

    @Test func stripeStartsTheKitchen() async throws {
        try await ReadyMadeBridge.with("sources/stripe.yaml") { bridge in
            let token = BridgeHarness.token(63)
            try await bridge.register("58213", token: token, source: "stripe")
            try await bridge.play("stripe") { _ in "stripe" }
            let shown = bridge.harness.shown(token)
            #expect(shown["status"] == .string("preparing"))
            #expect(shown["message"] == .string("Payment received, the kitchen is on it"))
            #expect(bridge.harness.mock.activity(token: token)?.lifecycle == .active)
        }
    }

    @Test func squareFulfillmentUpdatesDeliverTheOrder() async throws {
        try await ReadyMadeBridge.with("sources/square.yaml") { bridge in
            let token = BridgeHarness.token(64)
            try await bridge.register("wGwhBkEsBxqzpcWSfFLAr0PGXnJZY", token: token, source: "square")
            try await bridge.play("square") { _ in "square" }
            let shown = bridge.harness.shown(token)
            #expect(shown["status"] == .string("delivered"))
            #expect(shown["progress"] == .double(1) && shown["message"] == .string("Enjoy your meal!"))
            #expect(bridge.harness.mock.activity(token: token)?.lifecycle == .ended)
        }
    }

    /// Every ready-made configuration loads and names a scenario the samples fit.
    @Test func everyReadyMadeSourceLoads() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: ReadyMadeBridge.directory).filter {
            $0.hasSuffix(".yaml")
        }.sorted()
        #expect(
            files == [
                "doordash.yaml", "shopify.yaml", "sportradar-audience.yaml", "sportradar.yaml", "square.yaml",
                "stripe.yaml", "uber-direct.yaml",
            ])
        for file in files {
            let configuration = try BridgeConfigurationLoader(environment: ReadyMadeBridge.environment).load(
                file: "\(ReadyMadeBridge.directory)/\(file)")
            #expect(!configuration.sources.isEmpty, "\(file)")
        }
    }

    static func alerts(_ bridge: ReadyMadeBridge, _ token: String) -> [String] {
        StreamEndToEndTests.alertTitles(bridge.harness, token)
    }
}
