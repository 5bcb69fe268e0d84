import Foundation
import HTTPTypes
import Liveline
import LivelineAPNs
import LivelineFCM
import LivelineMockAPNs
import LivelineMockFCM
import Logging
import LivelineMockTestSupport
import NIOPosix
import Testing
@testable import LivelineBridge

/// The bridge's back half on a real store and a real mock APNs over TLS on loopback, stepped in
/// virtual time: the mock's device clock, the client's JWT clock and the dispatcher's `now`
/// are one ``ManualClock``.
final class BridgeHarness: Sendable {
    static let keyID = LoopbackMockAPNs.keyID
    static let teamID = LoopbackMockAPNs.teamID

    let clock: ManualClock
    let mock: MockAPNsServer
    let client: APNsClient
    /// With `android`: a mock FCM on the same clock, its phones running the sources' app, and
    /// the fan-out's FCM client.
    let mockFCM: MockFCMServer?
    let fcmClient: FCMClient?
    /// With `android`: the mock FCM's client under ``fcmProject``, as the senders have it.
    let fcm: FCMDestination?
    static let fcmProject = "liveline-test"
    let configuration: BridgeConfiguration
    let catalog: StoryCatalog
    let dispatcher: BridgeDispatcher
    let sender: OutboxSender
    let fanOut: FanOutSender
    let renewals: RenewalSender
    let store: any Store

    /// - Parameter configuration: the sources; Scenarios/bridge.example.yaml's by default.
    init(
        store: any Store, instance: String = "test",
        retry: RetryPolicy = RetryPolicy(base: .seconds(1), cap: .seconds(4), maxAttempts: 3),
        configuration: BridgeConfiguration? = nil, fanOut: FanOutSender.Configuration? = nil, android: Bool = false
    ) async throws {
        let clock = ManualClock(start: 1_800_000_000_000)
        let loopback = try await LoopbackMockAPNs.start(.tlsVerifyingTokens) { configuration in
            configuration.clock = clock
            // The order checks read every accepted push's timestamp.
            configuration.keepsEveryPayload = true
        }
        let mock = loopback.server
        let key = try SigningKey(pem: loopback.keyPEM, keyID: Self.keyID, teamID: Self.teamID)
        let endpoint = APNsEndpoint(
            host: "127.0.0.1", port: mock.port, tls: true, trustedCertificates: mock.certificatePath)
        client = try APNsClient(
            configuration: .init(endpoint: endpoint, signingKey: key, requestTimeout: .seconds(30)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, now: { clock.now() / 1000 }
        )
        self.clock = clock
        self.mock = mock
        self.store = store
        self.configuration = try configuration ?? loadExample()
        var fcm: FCMDestination?
        if android {
            var mockConfiguration = MockFCMConfiguration(clock: { clock.now() })
            mockConfiguration.app = AndroidAppModel(
                serving: self.configuration.sources.flatMap(\.scenario.activities).compactMap(\.android))
            let mockFCM = try await MockFCMServer.start(mockConfiguration)
            let account = try ServiceAccount(
                json: try mockFCM.makeServiceAccount(project: Self.fcmProject), source: "the mock FCM")
            let fcmClient = try FCMClient(
                configuration: .init(account: account, url: mockFCM.baseURL, policy: FCMDestination.clientPolicy),
                now: { clock.now() / 1000 }, pause: { _ in })
            self.mockFCM = mockFCM
            self.fcmClient = fcmClient
            fcm = FCMDestination(client: fcmClient, project: Self.fcmProject)
        } else {
            mockFCM = nil
            fcmClient = nil
        }
        self.fcm = fcm
        catalog = StoryCatalog(sources: self.configuration.sources)
        dispatcher = BridgeDispatcher(store: store, catalog: catalog, configuration: .init(instance: instance))
        let clients = APNsClients(client, fcm: fcm)
        sender = OutboxSender(store: store, clients: clients, configuration: .init(instance: instance, retry: retry))
        self.fanOut = FanOutSender(
            store: store, clients: clients, configuration: fanOut ?? .init(instance: instance, retry: retry))
        renewals = RenewalSender(
            store: store, clients: clients, configuration: .init(instance: instance, retry: retry))
    }

    func stop() async {
        await client.shutdown()
        await mock.shutdown()
        await fcmClient?.shutdown()
        await mockFCM?.stop()
    }

    var now: Millis { clock.now() }

    func advance(seconds: Double) { clock.advance(by: .milliseconds(Millis(seconds * 1000))) }

    /// Maps `body` with `source`'s rules and stores it, as the webhook route does.
    @discardableResult
    func receive(_ source: String, _ body: String, headers: [String: String] = [:]) async throws -> InsertResult {
        let configuration = try #require(configuration.source(named: source))
        var fields = HTTPFields()
        for (name, value) in headers {
            fields.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value))
        }
        let mapped = try EventMapper(source: configuration).map(body: Array(body.utf8), headers: fields)
        let event = mapped.inboxEvent(source: configuration, body: Array(body.utf8), headers: headers, receivedAt: now)
        return try #require(try await store.insertEvents([event]).first)
    }

    func register(
        _ key: String, updateToken: String? = nil, pushToStartToken: String? = nil, source: String = "doordash"
    ) async throws {
        _ = try await store.registerActivity(
            ActivityRegistration(
                activityKey: key,
                targets: ActivityTargets(updateToken: updateToken, pushToStartToken: pushToStartToken),
                source: source),
            now: now
        )
    }

    /// Dispatches and sends until nothing more is due at the current instant.
    func settle() async throws {
        for _ in 0..<20 {
            let dispatched = try await dispatcher.dispatch(now: now)
            let sent = try await sender.send(now: now)
            let fanned = try await fanOut.send(now: now)
            let renewed = try await renewals.send(now: now)
            if dispatched.activities == 0, sent.claimed == 0, !fanned.didWork, !renewed.didWork { return }
        }
    }

    /// Steps virtual time by `step` seconds up to `seconds`, settling at each step.
    func run(for seconds: Double, step: Double = 1) async throws {
        var elapsed = 0.0
        while elapsed < seconds {
            advance(seconds: step)
            elapsed += step
            try await settle()
        }
    }

    /// The content-state the mock's device shows for `token`.
    func shown(_ token: String) -> [String: JSONValue] {
        guard let object = mock.activity(token: token)?.contentState?.objectValue else { return [:] }
        return Dictionary(zip(object.keys, object.values).map { ($0, $1) }, uniquingKeysWith: { $1 })
    }

    /// `aps.timestamp` of each push the mock accepted for `token`, in arrival order.
    func timestamps(_ token: String) -> [Int64] {
        mock.pushes(token: token).filter { $0.status == 200 }.compactMap { record in
            guard let data = record.payload?.data(using: .utf8),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let aps = json["aps"] as? [String: Any], let timestamp = aps["timestamp"] as? NSNumber
            else { return nil }
            return timestamp.int64Value
        }
    }

    static func token(_ seed: Int) -> String {
        String(repeating: String(format: "%02x", seed % 256), count: 32)
    }
}

/// Runs `body` with a harness on a fresh store of `kind`, with `configuration`'s sources
/// (Scenarios/bridge.example.yaml's by default).
func withBridge(
    _ kind: StoreKind, configuration: BridgeConfiguration? = nil, fanOut: FanOutSender.Configuration? = nil,
    android: Bool = false, _ body: (BridgeHarness) async throws -> Void
) async throws {
    try await StoreFixture.withStore(kind) { store in
        let harness = try await BridgeHarness(
            store: store, configuration: configuration, fanOut: fanOut, android: android)
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}

/// A DoorDash Drive webhook body.
func doordash(
    _ event: String, delivery: String = "D-1", eta: String = "2027-01-15T18:30:00Z",
    created: String = "2027-01-15T18:00:00Z"
) -> String {
    #"{"event_name":"\#(event)","external_delivery_id":"\#(delivery)","created_at":"\#(created)","dropoff_time_estimated":"\#(eta)"}"#
}

/// An Uber Direct "on-the-way" status webhook body with a new drop-off ETA.
func uberETA(id: String, delivery: String, created: Int, etaMinute: Int) -> String {
    #"{"kind":"event.delivery_status","id":"\#(id)","status":"on-the-way","created":\#(created),"delivery_id":"\#(delivery)","data":{"dropoff_eta":"2027-01-15T18:\#(etaMinute):00Z"}}"#
}
