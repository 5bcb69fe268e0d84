import Crypto
import Foundation
import HTTPTypes
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineMockTestSupport
import LivelineTestSupport
import Logging
import NIOPosix
import Synchronization
import Testing
@testable import LivelineBridge

/// A configuration error halts sending for its app and environment (docs/answers.md): tried as
/// an operator would, with a mock that checks provider tokens, a bridge holding another key,
/// and `/readyz` read over HTTP. What a user saw before: 20 activities drew 134 refused
/// requests in 12 s, each push retried up to ten times, while `/readyz` kept answering 200.
@Suite(.serialized)
struct APNsHaltTests {
    static let probeInterval: Duration = .seconds(1)

    @Test(arguments: StoreKind.allCases)
    func aWrongKeyTurnsTheBridgeUnreadyProbesOncePerIntervalAndTheRightKeyResumesIt(kind: StoreKind) async throws {
        try await HaltRig.with(kind) { rig in
            let followers = (0..<50).map {
                Follower(
                    device: "fan-\($0)", updateToken: String(repeating: String(format: "%02x", 100 + $0), count: 32))
            }
            let service = try rig.bridge()
            let running = Task { try await service.run() }
            let port = try await service.http.listeningPort()
            #expect(try await rig.readiness(port).status == 200, "a bridge that has sent nothing knows of no problem")

            let started = ContinuousClock.now
            // order-0's followers before its event: the dispatcher polls, and an event it took up
            // before they joined would go to order-0's own token alone (no fan-out to catch up with).
            _ = try await rig.store.registerActivity(
                ActivityRegistration(
                    activityKey: "order-0", targets: ActivityTargets(updateToken: DrainRig.token(0)), source: "orders"),
                now: BridgeClock.now())
            _ = try await rig.store.putFollowers(followers, activityKey: "order-0", now: BridgeClock.now())
            try await DrainRig.receive(activities: 20, sequence: 1, store: rig.store, configuration: rig.configuration)
            service.dispatcher.wakeSignal.ring()
            var body = ""
            try await eventually("the bridge turns unready", within: 5, every: .milliseconds(20)) {
                let answer = try await rig.readiness(port)
                body = String(decoding: answer.body, as: UTF8.self)
                return answer.status == 503
            }
            // Counted from APNs' first refusal: before it, nothing could tell the key was wrong
            // (the 20 webhooks' dispatch comes first, slow on a busy machine).
            let unready = Duration.milliseconds(BridgeClock.now() - (rig.refusals().first ?? 0))
            #expect(ContinuousClock.now - started < .seconds(30))
            #expect(body.contains(#""error":"apns-halted""#), "\(body)")
            #expect(body.contains(#""apns-reason":"InvalidProviderToken""#), "\(body)")
            #expect(body.contains("apns.key-id"), "the answer says how to fix it: \(body)")
            #expect(body.contains(#""environment":"sandbox""#), "\(body)")

            // Four probes later, each an interval or more after the one before: one request per
            // interval, not a pass of them.
            try await eventually("four probes were refused", within: 30) { rig.refusals().count >= 5 }
            let refusals = rig.refusals()
            for (earlier, later) in zip(refusals, refusals.dropFirst()) {
                #expect(later - earlier >= Self.probeInterval.millis, "two probes \(later - earlier) ms apart")
            }
            // The pushes wait, their attempts not spent: nothing dead, nothing retried.
            let counts = try await rig.store.counts()
            #expect(counts.outbox == 20)
            #expect(counts.deadLetters == 0)
            #expect(try await rig.attemptsSpent() == 0)
            #expect(rig.mock.server.stats().statuses["200"] == nil)
            let metrics = try await rig.metrics(port)
            #expect(metrics.contains(#"liveline_apns_halted{environment="sandbox",reason="InvalidProviderToken"} 1"#))

            // The right key, read again as SIGHUP does: ready again, and every waiting push goes.
            rig.key.withLock { $0 = rig.rightKey }
            let fixed = ContinuousClock.now
            service.reloadCredentials()
            try await eventually("the bridge is ready again", within: 5, every: .milliseconds(20)) {
                try await rig.readiness(port).status == 200
            }
            let ready = ContinuousClock.now - fixed
            // Readiness is the promise (5 s, below); the pushes follow as they fall due again, a
            // retry's back-off included, so their wait is looser.
            try await eventually("the waiting pushes are delivered", within: 20, every: .milliseconds(20)) {
                try await rig.store.counts().outbox == 0
                    && followers.allSatisfy { rig.mock.server.activity(token: $0.updateToken ?? "") != nil }
            }
            let delivered = ContinuousClock.now - fixed
            for activity in 0..<20 {
                #expect(rig.mock.server.activity(token: DrainRig.token(activity)) != nil, "order-\(activity)")
            }
            #expect(try await rig.store.counts().deadLetters == 0)
            let after = try await rig.metrics(port)
            #expect(after.contains(#"liveline_apns_halted{environment="sandbox",reason="InvalidProviderToken"} 0"#))
            #expect(after.contains(#"liveline_apns_probes_total{environment="sandbox",result="resumed"}"#))
            print(
                "[\(kind)] wrong key: unready after \(unready), \(refusals.count) refusals in all; right key: ready after \(ready), every push delivered after \(delivered)"
            )
            #expect(unready < .seconds(5))
            #expect(ready < .seconds(5))

            await service.shutdown()
            try await running.value
        }
    }

    /// Per app and environment: a sandbox key that APNs refuses halts sandbox alone.
    @Test func aRefusedSandboxKeyDoesNotHaltProduction() async throws {
        try await HaltRig.with(.sqlite) { rig in
            let production = try await LoopbackMockAPNs.start(.tlsVerifyingTokens)
            defer { Task { await production.shutdown() } }
            let service = try rig.bridge(production: production)
            let running = Task { try await service.run() }
            let port = try await service.http.listeningPort()
            try await DrainRig.receive(
                activities: 3, sequence: 1, store: rig.store, configuration: rig.configuration, environment: .sandbox)
            _ = try await rig.store.registerActivity(
                ActivityRegistration(
                    activityKey: "order-9",
                    targets: ActivityTargets(updateToken: DrainRig.token(9), environment: .production),
                    source: "orders"),
                now: BridgeClock.now())
            try await rig.storeEvent(activity: 9, sequence: 1)
            service.dispatcher.wakeSignal.ring()
            try await eventually("production's push is delivered") {
                production.server.activity(token: DrainRig.token(9)) != nil
            }
            var body = ""
            try await eventually("the bridge says sandbox is halted") {
                let answer = try await rig.readiness(port)
                body = String(decoding: answer.body, as: UTF8.self)
                return answer.status == 503
            }
            #expect(body.contains(#""environment":"sandbox""#), "\(body)")
            #expect(!body.contains(#""environment":"production""#), "\(body)")
            #expect(service.halts.halted.map(\.scope.environment) == [.sandbox])
            await service.shutdown()
            try await running.value
        }
    }

    /// A key without the broadcast capability halts broadcasts only, and enabling it (here: the
    /// mock's refusal lifted) resumes them with the next probe, with no restart.
    @Test func broadcastsWithoutTheCapabilityWaitAndResumeWhenAProbeSucceeds() async throws {
        try await HaltRig.with(.sqlite, rightKey: true) { rig in
            // The app's channel (one that stores the newest message, as the bridge's pushes
            // carry an expiration), made while the key could still manage channels.
            let manager = try APNsClient(
                configuration: .init(
                    endpoint: APNsEndpoint(
                        host: "127.0.0.1", port: rig.mock.port, tls: true,
                        trustedCertificates: rig.mock.certificatePath),
                    signingKey: rig.rightKey),
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            let channel = try await BroadcastChannels(client: manager, bundleID: "com.example.fooddash").create(
                storagePolicy: 1)
            await manager.shutdown()
            rig.mock.server.setFaults(
                FaultPlan(errors: [.init(error: APNsError(status: 400, reason: "FeatureNotEnabled"), rate: 1)]))
            let service = try rig.bridge()
            let running = Task { try await service.run() }
            let port = try await service.http.listeningPort()
            _ = try await rig.store.registerActivity(
                ActivityRegistration(
                    activityKey: "order-0", targets: ActivityTargets(channelID: channel), source: "orders"),
                now: BridgeClock.now())
            try await rig.storeEvent(activity: 0, sequence: 1)
            service.dispatcher.wakeSignal.ring()
            var body = ""
            try await eventually("broadcasts are halted") {
                let answer = try await rig.readiness(port)
                body = String(decoding: answer.body, as: UTF8.self)
                return answer.status == 503
            }
            #expect(body.contains(#""apns-reason":"FeatureNotEnabled""#), "\(body)")
            #expect(body.contains(#""broadcasts":true"#), "\(body)")
            #expect(body.contains("Broadcast Capability"), "\(body)")
            #expect(try await rig.attemptsSpent() == 0)
            rig.mock.server.setFaults(.none)
            try await eventually("a probe resumes broadcasts", within: 10) {
                guard try await rig.readiness(port).status == 200 else { return false }
                return try await rig.store.counts().outbox == 0
            }
            #expect(rig.mock.server.stats().broadcasts >= 2)
            await service.shutdown()
            try await running.value
        }
    }
}

/// A store, a mock APNs that checks provider tokens, and bridges whose key can be changed.
final class HaltRig: Sendable {
    let store: SQLStore
    let mock: LoopbackMockAPNs
    let configuration: BridgeConfiguration
    /// The key the next clients sign with: a stranger's at first.
    let key: Mutex<SigningKey>
    let rightKey: SigningKey
    /// When the mock refused a provider token, on its clock.
    private let refused = Mutex<[Millis]>([])
    /// The SHA-256 of the registry API key `demo-key`.
    static let apiKeyHash = "sha256:c48a01f49fd0f2cc404bc3cbbc80e91457a3d41bb429a695243de4c61794155c"

    private init(
        store: SQLStore, mock: LoopbackMockAPNs, configuration: BridgeConfiguration, key: SigningKey, right: SigningKey
    ) {
        self.store = store
        self.mock = mock
        self.configuration = configuration
        self.key = Mutex(key)
        rightKey = right
    }

    /// Notes each refused provider token until cancelled.
    private func watch(_ events: AsyncStream<AnsweredPush>) async {
        for await push in events where push.reason == "InvalidProviderToken" {
            refused.withLock { $0.append(push.time) }
        }
    }

    static func with(
        _ kind: StoreKind, rightKey: Bool = false, faults: FaultPlan = .none, _ body: (HaltRig) async throws -> Void
    ) async throws {
        try await StoreFixture.withStore(kind) { store in
            let mock = try await LoopbackMockAPNs.start(.tlsVerifyingTokens) {
                $0.keepsEveryPayload = true
                $0.faults = faults
            }
            let right = try SigningKey(pem: mock.keyPEM, keyID: LoopbackMockAPNs.keyID, teamID: LoopbackMockAPNs.teamID)
            let wrong = try SigningKey(
                pem: P256.Signing.PrivateKey().pemRepresentation, keyID: LoopbackMockAPNs.keyID,
                teamID: LoopbackMockAPNs.teamID)
            var configuration = try DrainRig.configuration(drainTimeout: .seconds(5))
            // The registry's key is `demo-key`.
            configuration.apiKeys = [try #require(APIKeyHash(parsing: HaltRig.apiKeyHash))]
            let rig = HaltRig(
                store: store, mock: mock, configuration: configuration, key: rightKey ? right : wrong, right: right)
            let events = mock.server.events()
            let watch = Task { await rig.watch(events) }
            do {
                try await body(rig)
            } catch {
                watch.cancel()
                await mock.shutdown()
                throw error
            }
            watch.cancel()
            await mock.shutdown()
        }
    }

    /// A bridge whose clients sign with ``key`` (read again at each reload): sandbox at the
    /// rig's mock, and production at `production` when given (with its right key).
    func bridge(production: LoopbackMockAPNs? = nil, device: DeviceView? = nil) throws -> BridgeService {
        var logger = Logger(label: "liveline.tests.halts")
        logger.logLevel = .critical
        var endpoints: [APNsEnvironment: APNsEndpoint] = [
            .sandbox: APNsEndpoint(
                host: "127.0.0.1", port: mock.port, tls: true, trustedCertificates: mock.certificatePath)
        ]
        var keys: [APNsEnvironment: SigningKey] = [:]
        if let production {
            endpoints[.production] = APNsEndpoint(
                host: "127.0.0.1", port: production.port, tls: true, trustedCertificates: production.certificatePath)
            keys[.production] = try SigningKey(
                pem: production.keyPEM, keyID: LoopbackMockAPNs.keyID, teamID: LoopbackMockAPNs.teamID)
        }
        let fixed = keys
        let places = endpoints
        let clients = try APNsClients(defaultEnvironment: .sandbox, retireAfter: .seconds(1)) {
            try places.mapValues { endpoint in
                try APNsClient(
                    configuration: .init(endpoint: endpoint, signingKey: self.key.withLock { $0 }),
                    eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            }.merging(
                try fixed.mapValues { productionKey in
                    try APNsClient(
                        configuration: .init(
                            endpoint: places[.production] ?? .production, signingKey: productionKey),
                        eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
                }, uniquingKeysWith: { $1 })
        }
        var options = BridgeService.Options(
            instance: "halts", lease: .seconds(30), listen: ListenAddress(host: "127.0.0.1", port: 0))
        options.probeInterval = APNsHaltTests.probeInterval
        options.device = device
        return BridgeService(
            configuration: configuration, store: store, clients: clients, options: options, logger: logger)
    }

    /// When the mock refused a provider token, in order.
    func refusals() -> [Millis] { refused.withLock { $0 } }

    /// Stores one event for activity `order-<activity>`.
    func storeEvent(activity: Int, sequence: Int) async throws {
        let source = try #require(configuration.source(named: "orders"))
        let body = Array(DrainRig.body(activity: activity, sequence: sequence).utf8)
        var fields = HTTPFields()
        fields[HTTPField.Name("webhook-id")!] = "msg-\(activity)-\(sequence)"
        let mapped = try EventMapper(source: source).map(body: body, headers: fields)
        _ = try await store.insertEvents([
            mapped.inboxEvent(
                source: source, body: body, headers: ["webhook-id": "msg-\(activity)-\(sequence)"],
                receivedAt: BridgeClock.now())
        ])
    }

    /// A registry request with the API key: `PUT` or `GET` `path` on the bridge at `port`.
    func registry(
        _ method: HTTPRequest.Method, _ path: String, port: Int, body: String = ""
    ) async throws -> (status: Int, body: String) {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer demo-key"
        if !body.isEmpty { headers[.contentType] = "application/json" }
        let answer = try await WebhookSender().send(
            to: "http://127.0.0.1:\(port)\(path)", method: method, headers: headers, body: Array(body.utf8))
        return (answer.status, String(decoding: answer.body, as: UTF8.self))
    }

    func readiness(_ port: Int) async throws -> WebhookSender.Answer {
        try await WebhookSender().send(to: "http://127.0.0.1:\(port)/readyz", method: .get, headers: [:], body: [])
    }

    func metrics(_ port: Int) async throws -> String {
        let answer = try await WebhookSender().send(
            to: "http://127.0.0.1:\(port)/metrics", method: .get, headers: [:], body: [])
        return String(decoding: answer.body, as: UTF8.self)
    }

    /// Attempts the outbox's pushes have spent.
    func attemptsSpent() async throws -> Int64 {
        try await store.transaction { tx in
            try await tx.run("SELECT CAST(COALESCE(SUM(attempts), 0) AS BIGINT) FROM outbox").first?.int(0) ?? 0
        }
    }
}
