import Foundation
import Liveline
import Logging
import Testing
@testable import LivelineBridge

/// `/healthz`, `/readyz`, `/metrics` and the answers for paths no route serves.
@Suite struct OperationsAPITests {
    @Test func healthReadinessAndMetrics() async throws {
        try await RunningBridge.with { bridge in
            let health = try await Curl.run("\(bridge.base)/healthz")
            #expect(health.status == 200 && health.body == #"{"status":"alive"}"#)

            let registered = try await bridge.registry(
                .put, "D-9",
                body: #"{"update-token": "\#(ActivityRegistryAPITests.updateToken)", "source": "doordash"}"#)
            #expect(registered.status == 201)
            let ready = try await Curl.run("\(bridge.base)/readyz")
            #expect(ready.status == 200)
            #expect(ready.body == #"{"status":"ready","pending-events":0,"outbox":0,"dead-letters":0,"activities":1}"#)

            // The dispatcher's counters and histogram show on the same page.
            bridge.metrics.pushAnswered(platform: .ios, status: 410, reason: "Unregistered")
            bridge.metrics.receiptToAnswer(seconds: 0.004)
            bridge.metrics.retried(reason: "TooManyRequests")
            bridge.metrics.deadLettered()
            let metrics = try await Curl.run("\(bridge.base)/metrics")
            for line in [
                "# TYPE liveline_pushes_total counter", "# TYPE liveline_receipt_to_apns_seconds histogram",
                #"liveline_pushes_total{platform="ios",status="410",reason="Unregistered"} 1"#,
                #"liveline_receipt_to_apns_seconds_bucket{le="0.005"} 1"#,
                #"liveline_receipt_to_apns_seconds_bucket{le="0.0025"} 0"#,
                #"liveline_push_retries_total{reason="TooManyRequests"} 1"#,
                "liveline_dead_lettered_total 1", "liveline_activities 1.0", "liveline_outbox_depth 0.0",
            ] {
                #expect(metrics.body.contains(line), "no \(line) in\n\(metrics.body)")
            }
        }
    }

    @Test func aPathNoRouteServesAnswersJSON() async throws {
        try await RunningBridge.with { bridge in
            let answer = try await Curl.run("\(bridge.base)/v2/webhooks/uber", ["-X", "POST"])
            #expect(answer.status == 404)
            let object = try jsonObject(answer.body)
            #expect(object["error"] as? String == "not-found")
            #expect((object["reason"] as? String)?.hasPrefix("no route for POST /v2/webhooks/uber") == true)
        }
    }

    @Test func readinessFailsWhenTheStoreDoesNotAnswer() async throws {
        try await StoreFixture.withLocation(.sqlite) { location in
            let store = try await SQLStore.open(location)
            let server = BridgeHTTPServer(
                configuration: try loadExample(), store: store, inbox: InboxWriter(store: store),
                metrics: BridgeMetrics(),
                logger: Logger(label: "liveline.tests.bridge", factory: { _ in SwiftLogNoOpLogHandler() }),
                listen: ListenAddress(host: "127.0.0.1", port: 0), wake: {}, contentState: { _ in nil })
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                defer { group.cancelAll() }
                let port = try await server.listeningPort()
                #expect(server.port == port)
                try await store.close()
                let ready = try await Curl.run("http://127.0.0.1:\(port)/readyz")
                #expect(ready.status == 503)
                #expect(try jsonObject(ready.body)["error"] as? String == "store-unavailable")
                // Alive all the same: the process serves.
                #expect(try await Curl.run("http://127.0.0.1:\(port)/healthz").status == 200)
            }
        }
    }

    @Test func aPortTakenAlreadyIsReportedToWhoeverWaitsForIt() async throws {
        try await RunningBridge.with { bridge in
            let second = BridgeHTTPServer(
                configuration: bridge.configuration, store: bridge.store, inbox: InboxWriter(store: bridge.store),
                metrics: BridgeMetrics(),
                logger: Logger(label: "liveline.tests.bridge", factory: { _ in SwiftLogNoOpLogHandler() }),
                listen: ListenAddress(host: "127.0.0.1", port: bridge.port), wake: {}, contentState: { _ in nil })
            let running = Task { try await second.run() }
            let waiting = await #expect(throws: BridgeHTTPServer.NotListening.self) {
                _ = try await second.listeningPort()
            }
            #expect(waiting?.reason.contains("127.0.0.1:\(bridge.port)") == true)
            // The error names the address and the likely cause, not only the socket's errno.
            let failure = await #expect(throws: ListenFailure.self) { try await running.value }
            #expect(failure?.addressInUse == true)
            #expect(failure?.port == bridge.port)
            #expect(
                failure?.description.contains(
                    "another Liveline bridge or mock, or another program, is listening on 127.0.0.1:\(bridge.port)")
                    == true)
            #expect(failure?.description.contains("--listen") == true)
        }
    }
}
