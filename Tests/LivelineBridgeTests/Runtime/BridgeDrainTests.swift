import Foundation
import HTTPTypes
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineMockTestSupport
import LivelineTestSupport
import Logging
import NIOPosix
import Testing
@testable import LivelineBridge

/// A deploy stops the bridge with SIGTERM while APNs is slow. What a user saw before the
/// drain: pushes in flight abandoned, sent a second time after the restart, and pushes that
/// stalled a whole lease (a minute) because the stopped instance still claimed them.
@Suite(.serialized)
struct BridgeDrainTests {
    @Test(arguments: StoreKind.allCases)
    func aStopWaitsForThePushesInFlightSoTheNextInstanceSendsNothingTwice(kind: StoreKind) async throws {
        try await DrainRig.with(kind, latency: .fixed(1000), drainTimeout: .seconds(10)) { rig in
            let first = try rig.bridge(instance: "first")
            let running = Task { try await first.run() }
            let port = try await first.http.listeningPort()
            try await rig.receive(activities: 40, sequence: 1)
            first.dispatcher.wakeSignal.ring()
            // Wait until the sender has the pushes in flight at the slow mock.
            try await eventually("pushes are in flight") { try await rig.claimedPushes() > 0 }

            await first.shutdown()
            // The drain: webhooks are refused with 503 and Retry-After (not a reset connection),
            // and the instance is not ready.
            let refused = try await rig.postWebhook(port: port, sequence: 2)
            #expect(refused.status == 503)
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(String(decoding: refused.body, as: UTF8.self).contains(#""error":"draining""#))
            let readiness = try await WebhookSender().send(
                to: "http://127.0.0.1:\(port)/readyz", method: .get, headers: [:], body: [])
            #expect(readiness.status == 503)
            try await running.value

            // Every push in flight was answered and recorded: nothing claimed, nothing queued.
            #expect(try await rig.claimedPushes() == 0)
            #expect(try await rig.store.counts().outbox == 0)
            let sent = rig.acceptedPushes()
            #expect(sent == 40)

            // The next instance has nothing to send again, and nothing to wait for.
            let second = try rig.bridge(instance: "second")
            #expect(try await second.dispatcher.dispatch(now: BridgeClock.now()).activities == 0)
            #expect(try await second.sender.send(now: BridgeClock.now()).claimed == 0)
            for activity in 0..<40 {
                let payloads = rig.mock.pushes(token: DrainRig.token(activity)).filter { $0.status == 200 }.compactMap(
                    \.payload)
                #expect(payloads.count == 1, "order-\(activity) got \(payloads.count) pushes for one event")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aDrainThatRunsOutOfTimeGivesTheUnansweredPushesBackForTheNextInstanceAtOnce(kind: StoreKind) async throws {
        // APNs answers after 20 s; the drain waits 1 s. The lease is 30 s (pushes 60 s).
        try await DrainRig.with(kind, latency: .fixed(20_000), drainTimeout: .seconds(1)) { rig in
            let first = try rig.bridge(instance: "first")
            let running = Task { try await first.run() }
            _ = try await first.http.listeningPort()
            try await rig.receive(activities: 20, sequence: 1)
            first.dispatcher.wakeSignal.ring()
            try await eventually("pushes are in flight") { try await rig.claimedPushes() > 0 }
            let stopped = ContinuousClock.now
            await first.shutdown()
            try await running.value
            #expect(ContinuousClock.now - stopped < .seconds(5), "the drain ran past its deadline")
            #expect(try await rig.claimedPushes() == 0, "a stopped instance still claims pushes")
            #expect(try await rig.store.counts().outbox == 20)

            // APNs is fast again: the next instance sends them at once, not after a lease.
            rig.mock.setFaults(.none)
            let second = try rig.bridge(instance: "second")
            let next = Task { try await second.run() }
            try await eventually("the given-back pushes are sent") {
                try await rig.store.counts().outbox == 0
            }
            for activity in 0..<20 {
                #expect(
                    rig.mock.activity(token: DrainRig.token(activity))?.contentState?.objectValue?["minutesLeft"]?
                        .numberValue == 999)
            }
            await second.shutdown()
            try await next.value
        }
    }
}

/// A store, a mock APNs in this process with a latency fault, and bridges made on them.
struct DrainRig: Sendable {
    let store: SQLStore
    let mock: MockAPNsServer
    let client: APNsClient
    let configuration: BridgeConfiguration

    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    static func with(
        _ kind: StoreKind, latency: Latency, drainTimeout: Duration, _ body: (DrainRig) async throws -> Void
    ) async throws {
        try await StoreFixture.withStore(kind) { store in
            let mock = try await LoopbackMockAPNs.start(.tlsAcceptingAnyToken) { configuration in
                configuration.keepsEveryPayload = true
                configuration.faults = FaultPlan(latency: latency)
            }.server
            let endpoint = APNsEndpoint(
                host: "127.0.0.1", port: mock.port, tls: true, trustedCertificates: mock.certificatePath)
            let client = try APNsClient(
                configuration: .init(endpoint: endpoint, requestTimeout: .seconds(60)),
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            let configuration = try Self.configuration(drainTimeout: drainTimeout)
            let rig = DrainRig(store: store, mock: mock, client: client, configuration: configuration)
            do {
                try await body(rig)
            } catch {
                await client.shutdown()
                await mock.shutdown()
                throw error
            }
            await client.shutdown()
            await mock.shutdown()
        }
    }

    /// A bridge with one source, `orders` (Standard Webhooks), playing delivery.yaml.
    static func configuration(drainTimeout: Duration) throws -> BridgeConfiguration {
        var configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: """
                liveline-bridge: 1
                sources:
                  orders:
                    verify: standard-webhooks
                    secrets: [\(secret)]
                    event-id: header:webhook-id
                    event-type: /type
                    activity-key: /data/order_id
                    order-key: /data/sequence
                    order: sequence
                    scenario: delivery.yaml
                    events:
                      order.eta:
                        set: { minutesLeft: /data/minutes_left }
                """, file: testConfigurationFile)
        configuration.drainTimeout = drainTimeout
        return configuration
    }

    func bridge(instance: String) throws -> BridgeService {
        var logger = Logger(label: "liveline.tests.drain")
        logger.logLevel = .error
        return BridgeService(
            configuration: configuration, store: store, client: client,
            options: .init(instance: instance, lease: .seconds(30), listen: ListenAddress(host: "127.0.0.1", port: 0)),
            logger: logger
        )
    }

    static func token(_ activity: Int) -> String {
        String(repeating: String(format: "%02x", activity % 256), count: 32)
    }

    /// Registers `activities` activities (again: no change) and stores one event for each.
    func receive(activities: Int, sequence: Int) async throws {
        try await Self.receive(activities: activities, sequence: sequence, store: store, configuration: configuration)
    }

    /// Registers `activities` activities in `store` (again: no change) and stores one event for each.
    static func receive(
        activities: Int, sequence: Int, store: any Store, configuration: BridgeConfiguration,
        environment: APNsEnvironment? = nil
    ) async throws {
        let source = try #require(configuration.source(named: "orders"))
        var events: [InboxEvent] = []
        for activity in 0..<activities {
            _ = try await store.registerActivity(
                ActivityRegistration(
                    activityKey: "order-\(activity)",
                    targets: ActivityTargets(updateToken: Self.token(activity), environment: environment),
                    source: "orders"),
                now: BridgeClock.now()
            )
            let body = Array(Self.body(activity: activity, sequence: sequence).utf8)
            let headers = ["webhook-id": "msg-\(activity)-\(sequence)"]
            var fields = HTTPFields()
            fields[HTTPField.Name("webhook-id")!] = headers["webhook-id"]
            let mapped = try EventMapper(source: source).map(body: body, headers: fields)
            events.append(
                mapped.inboxEvent(source: source, body: body, headers: headers, receivedAt: BridgeClock.now()))
        }
        _ = try await store.insertEvents(events)
    }

    static func body(activity: Int, sequence: Int) -> String {
        #"{"type":"order.eta","data":{"order_id":"order-\#(activity)","sequence":\#(sequence),"minutes_left":\#(1000 - sequence)}}"#
    }

    /// Posts a signed webhook to the bridge on `port`.
    func postWebhook(port: Int, sequence: Int) async throws -> WebhookSender.Answer {
        let url = "http://127.0.0.1:\(port)/v1/webhooks/orders"
        let body = Array(Self.body(activity: 0, sequence: sequence).utf8)
        let source = try #require(configuration.source(named: "orders"))
        var headers = try WebhookSigner(scheme: source.scheme).sign(
            body: body, url: url, now: BridgeClock.unixSeconds(BridgeClock.now()), headers: [:],
            id: "msg-late-\(sequence)")
        headers[.contentType] = "application/json"
        return try await WebhookSender().send(to: url, headers: headers, body: body)
    }

    /// Pushes the store says an instance holds.
    func claimedPushes() async throws -> Int64 {
        try await store.transaction { tx in
            try await tx.run("SELECT COUNT(*) FROM outbox WHERE claimed_by <> ''").first?.int(0) ?? 0
        }
    }

    /// Pushes the mock accepted, over all activities.
    func acceptedPushes() -> Int { mock.stats().statuses["200"] ?? 0 }
}
