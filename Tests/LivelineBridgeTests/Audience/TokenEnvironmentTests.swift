import Foundation
import HTTPTypes
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineMockTestSupport
import LivelineTestSupport
import Testing
@testable import LivelineBridge

/// Tokens carry their APNs environment: QA devices run development builds (sandbox tokens)
/// while fans run the App Store build (production tokens). Two mocks, one per environment,
/// each answering the other's tokens `BadDeviceToken` as APNs does; the bridge is driven over
/// its HTTP API.
@Suite(.serialized)
struct TokenEnvironmentTests {
    static func token(_ prefix: String, _ index: Int) -> String {
        String(repeating: prefix + String(format: "%02x", index), count: 16)
    }

    static let sandboxTokens = (0..<3).map { token("5a", $0) }
    static let productionTokens = (0..<3).map { token("9d", $0) }
    /// A development build's token that the app registered as production.
    static let misfiled = token("5b", 0)
    static let misfiledActivity = token("5b", 1)

    @Test(arguments: StoreKind.allCases)
    func aMixedAudienceReachesEachDeviceThroughItsOwnEnvironment(kind: StoreKind) async throws {
        let sandboxOnly = Set(Self.sandboxTokens + [Self.misfiled, Self.misfiledActivity])
        try await HaltRig.with(
            kind, rightKey: true, faults: FaultPlan(otherEnvironmentTokens: Set(Self.productionTokens))
        ) { rig in
            let production = try await LoopbackMockAPNs.start(.tlsVerifyingTokens) {
                $0.faults = FaultPlan(otherEnvironmentTokens: sandboxOnly)
            }
            defer { Task { await production.shutdown() } }
            let service = try rig.bridge(production: production)
            let running = Task { try await service.run() }
            let port = try await service.http.listeningPort()

            var answer = try await rig.registry(
                .put, "/v1/activities/order-1", port: port,
                body: #"{"update-token": "\#(Self.sandboxTokens[0])", "environment": "sandbox"}"#)
            #expect(answer.status == 201, "\(answer.body)")
            #expect(answer.body.contains(#""environment":"sandbox""#), "\(answer.body)")
            for (index, token) in Self.sandboxTokens.enumerated() {
                answer = try await rig.registry(
                    .put, "/v1/activities/order-1/followers/qa-\(index)", port: port,
                    body: #"{"update-token": "\#(token)", "environment": "sandbox"}"#)
                #expect(answer.status == 201, "\(answer.body)")
            }
            for (index, token) in Self.productionTokens.enumerated() {
                answer = try await rig.registry(
                    .put, "/v1/activities/order-1/followers/fan-\(index)", port: port,
                    body: #"{"update-token": "\#(token)", "environment": "production"}"#)
                #expect(answer.status == 201, "\(answer.body)")
                #expect(answer.body.contains(#""environment":"production""#), "\(answer.body)")
            }
            answer = try await rig.registry(
                .put, "/v1/activities/order-1/followers/misfiled", port: port,
                body: #"{"update-token": "\#(Self.misfiled)", "environment": "production"}"#)
            #expect(answer.status == 201, "\(answer.body)")
            // A word that is no environment is refused, and names the two.
            answer = try await rig.registry(
                .put, "/v1/activities/order-1/followers/typo", port: port,
                body: #"{"update-token": "\#(Self.misfiled)", "environment": "staging"}"#)
            #expect(answer.status == 400)
            #expect(answer.body.contains("sandbox") && answer.body.contains("production"), "\(answer.body)")

            answer = try await rig.registry(.get, "/v1/activities/order-1", port: port)
            #expect(answer.body.contains(#""environments":{"sandbox":3,"production":4}"#), "\(answer.body)")

            try await rig.storeEvent(activity: 1, sequence: 1)
            service.dispatcher.wakeSignal.ring()
            try await eventually("every device shows the state") {
                Self.sandboxTokens.allSatisfy { rig.mock.server.activity(token: $0) != nil }
                    && Self.productionTokens.allSatisfy { production.server.activity(token: $0) != nil }
            }
            // Each token went to its own environment only.
            for token in Self.sandboxTokens { #expect(production.server.pushes(token: token).isEmpty) }
            for token in Self.productionTokens { #expect(rig.mock.server.pushes(token: token).isEmpty) }

            // The sandbox token registered as production: BadDeviceToken, forgotten, and summed
            // under production with the hint.
            try await eventually("the misfiled follower is summed") {
                try await rig.registry(.get, "/v1/activities/order-1", port: port).body.contains("BadDeviceToken")
            }
            answer = try await rig.registry(.get, "/v1/activities/order-1", port: port)
            #expect(answer.body.contains(#""reason":"BadDeviceToken (production)""#), "\(answer.body)")
            #expect(answer.body.contains("may be a sandbox token"), "\(answer.body)")
            #expect(answer.body.contains(#""environments":{"sandbox":3,"production":3}"#), "\(answer.body)")
            #expect(production.server.pushes(token: Self.misfiled).first?.reason == "BadDeviceToken")
            #expect(try await rig.store.follower(device: "misfiled", activityKey: "order-1") == nil)

            service.metrics.setFollowers(try await rig.store.allFollowerCounts(), defaultEnvironment: .sandbox)
            let metrics = try await rig.metrics(port)
            #expect(metrics.contains(#"liveline_followers_by_environment{environment="sandbox"} 3"#), "\(metrics)")
            #expect(metrics.contains(#"liveline_followers_by_environment{environment="production"} 3"#))
            #expect(try await rig.readiness(port).status == 200, "a bad token is no setup error")

            await service.shutdown()
            try await running.value
        }
    }

    @Test func aSandboxTokenRegisteredAsProductionIsReportedWithTheHint() async throws {
        try await HaltRig.with(.sqlite, rightKey: true) { rig in
            let production = try await LoopbackMockAPNs.start(.tlsVerifyingTokens) {
                $0.faults = FaultPlan(otherEnvironmentTokens: [Self.misfiledActivity])
            }
            defer { Task { await production.shutdown() } }
            let service = try rig.bridge(production: production)
            let running = Task { try await service.run() }
            let port = try await service.http.listeningPort()
            let answer = try await rig.registry(
                .put, "/v1/activities/order-2", port: port,
                body: #"{"update-token": "\#(Self.misfiledActivity)", "environment": "production"}"#)
            #expect(answer.status == 201, "\(answer.body)")
            try await rig.storeEvent(activity: 2, sequence: 1)
            service.dispatcher.wakeSignal.ring()
            var shown = ""
            try await eventually("the activity shows the refusal") {
                shown = try await rig.registry(.get, "/v1/activities/order-2", port: port).body
                return shown.contains("BadDeviceToken")
            }
            #expect(shown.contains(#""update-token":null"#), "the token is forgotten: \(shown)")
            #expect(shown.contains("registered for production and may be a sandbox token"), "\(shown)")
            #expect(shown.contains(#"\"environment\": \"sandbox\""#), "the hint says what to send: \(shown)")
            #expect(rig.mock.server.pushes(token: Self.misfiledActivity).isEmpty)
            await service.shutdown()
            try await running.value
        }
    }

    @Test func anEnvironmentTheBridgeDoesNotServeIsRefused() throws {
        let served = APNsEnvironments(served: [.production], defaultEnvironment: .production)
        let request = try FollowerRequest(
            parsing: Array(#"{"update-token": "\#(Self.misfiled)", "environment": "sandbox"}"#.utf8))
        #expect(throws: BridgeHTTPError.self) { try request.follower(device: "d", existing: nil, environments: served) }
        do {
            _ = try request.follower(device: "d", existing: nil, environments: served)
        } catch {
            #expect(error.status == .unprocessableContent)
            #expect(error.code == "environment-not-served")
            #expect(error.reason.contains("apns.environments"))
        }
        // null goes back to the bridge's default; an import line may name it too.
        let reset = try FollowerRequest(parsing: Array(#"{"environment": null}"#.utf8))
        let existing = Follower(device: "d", updateToken: Self.misfiled, environment: .production)
        #expect(try reset.follower(device: "d", existing: existing).environment == nil)
        let lines = try FollowerRequest.lines(
            Array(#"{"device": "a", "update-token": "\#(Self.misfiled)", "environment": "production"}"#.utf8),
            limit: 10)
        #expect(lines.first?.environment == .production)
    }

    /// The counts by environment are kept by triggers, on both stores, through every change.
    @Test(arguments: StoreKind.allCases)
    func followersAreCountedByEnvironmentThroughEveryChange(kind: StoreKind) async throws {
        try await StoreFixture.withStore(kind) { store in
            let now = StoreFixture.epoch
            _ = try await store.registerActivity(
                ActivityRegistration(
                    activityKey: "k",
                    targets: ActivityTargets(updateToken: Self.token("aa", 1), environment: .production),
                    source: "s"),
                now: now)
            #expect(try await store.activity("k")?.environment == .production)
            _ = try await store.putFollowers(
                [
                    Follower(device: "a", updateToken: Self.token("a0", 1), environment: .sandbox),
                    Follower(device: "b", updateToken: Self.token("a0", 2), environment: .production),
                    Follower(device: "c", updateToken: Self.token("a0", 3)),
                ], activityKey: "k", now: now)
            var counts = try await store.followerCounts(activityKey: "k")
            #expect(counts.named == [.sandbox: 1, .production: 1])
            #expect(counts.byEnvironment(default: .production) == [.sandbox: 1, .production: 2])
            // Moved, then removed.
            _ = try await store.putFollowers(
                [Follower(device: "a", updateToken: Self.token("a0", 1), environment: .production)], activityKey: "k",
                now: now)
            counts = try await store.followerCounts(activityKey: "k")
            #expect(counts.named == [.production: 2])
            #expect(try await store.deleteFollower(device: "b", activityKey: "k"))
            counts = try await store.followerCounts(activityKey: "k")
            #expect(counts.named == [.production: 1])
            #expect(try await store.follower(device: "a", activityKey: "k")?.environment == .production)
            #expect(try await store.allFollowerCounts().named == [.production: 1])
            #expect(try await store.deleteActivity("k"))
            #expect(try await store.allFollowerCounts().named.isEmpty)
        }
    }
}
