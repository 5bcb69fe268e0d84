import Foundation
import HTTPTypes
import Testing
@testable import LivelineBridge

/// `PUT`/`DELETE /v1/activities/{key}/followers/{device}` and the NDJSON import over real HTTP
/// on loopback, and `GET /v1/activities/{key}`'s follower counts.
@Suite struct FollowersAPITests {
    static let update = String(repeating: "ab", count: 32)
    static let start = String(repeating: "cd", count: 32)

    func send(
        _ bridge: RunningBridge, _ method: HTTPRequest.Method, _ path: String, body: String = "",
        type: String = "application/json"
    ) async throws -> WebhookSender.Answer {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(RunningBridge.apiKey)"
        if !body.isEmpty { headers[.contentType] = type }
        return try await WebhookSender().send(
            to: "\(bridge.base)/v1/activities/\(path)", method: method, headers: headers, body: Array(body.utf8))
    }

    @Test(arguments: StoreKind.allCases)
    func followersAreAddedChangedCountedAndRemoved(_ kind: StoreKind) async throws {
        try await RunningBridge.with(store: kind) { bridge in
            // The key must be registered; an audience needs no target of its own.
            #expect(
                try await send(bridge, .put, "M-1/followers/phone-1", body: #"{"update-token": "\#(Self.update)"}"#)
                    .status == 404)
            let noTarget = try await bridge.registry(.put, "M-1", body: #"{"source": "doordash"}"#)
            #expect(noTarget.status == 422)
            #expect(
                try await bridge.registry(.put, "M-1", body: #"{"source": "doordash", "audience": true}"#).status == 201
            )

            let created = try await send(
                bridge, .put, "M-1/followers/phone-1", body: #"{"push-to-start-token": "\#(Self.start)"}"#)
            #expect(created.status == 201, "\(created.text)")
            let shown = try jsonObject(created.text)
            #expect(shown["device"] as? String == "phone-1")
            #expect(shown["push-to-start-token"] as? String == "…" + Self.start.suffix(8))
            #expect(!created.text.contains(Self.start))
            // The app reports its update token later; the start token stays.
            let changed = try await send(
                bridge, .put, "M-1/followers/phone-1", body: #"{"update-token": "\#(Self.update)"}"#)
            #expect(changed.status == 200)
            let stored = try #require(try await bridge.store.follower(device: "phone-1", activityKey: "M-1"))
            #expect(stored == Follower(device: "phone-1", updateToken: Self.update, startToken: Self.start))
            #expect(
                try await send(
                    bridge, .put, "M-1/followers/phone-2",
                    body: #"{"update-token": "\#(Self.update)", "channel": true}"#
                ).status == 201)

            let noToken = try await send(bridge, .put, "M-1/followers/phone-3", body: #"{"channel": true}"#)
            #expect(noToken.status == 422)
            #expect(try jsonObject(noToken.text)["error"] as? String == "no-token")
            let badToken = try await send(bridge, .put, "M-1/followers/phone-3", body: #"{"update-token": "xyz"}"#)
            #expect(badToken.status == 400)
            let unknown = try await send(
                bridge, .put, "M-1/followers/phone-3", body: #"{"update_token": "\#(Self.update)"}"#)
            #expect(unknown.status == 400)
            #expect(try jsonObject(unknown.text)["error"] as? String == "unknown-field")

            let view = try jsonObject(try await bridge.registry(.get, "M-1").text)
            let followers = try #require(view["followers"] as? [String: Any])
            #expect(followers["total"] as? Int == 2)
            #expect(followers["updating"] as? Int == 1)
            #expect(followers["on-channel"] as? Int == 1)

            #expect(try await send(bridge, .delete, "M-1/followers/phone-2").status == 204)
            #expect(try await send(bridge, .delete, "M-1/followers/phone-2").status == 404)
            #expect(try await bridge.store.followerCounts(activityKey: "M-1").total == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anNDJSONImportStoresThousandsInOneRequestAndRefusesABadLineWhole(_ kind: StoreKind) async throws {
        try await RunningBridge.with(store: kind) { bridge in
            #expect(
                try await bridge.registry(.put, "M-2", body: #"{"source": "doordash", "audience": true}"#).status == 201
            )
            let lines = (0..<3000).map { n in
                #"{"device": "d-\#(n)", "update-token": "\#(String(format: "%064x", n + 1))"\#(n % 3 == 0 ? #", "channel": true"# : "")}"#
            }
            let answer = try await send(
                bridge, .post, "M-2/followers", body: lines.joined(separator: "\n") + "\n", type: "application/x-ndjson"
            )
            #expect(answer.status == 200, "\(answer.text)")
            let counts = try jsonObject(answer.text)
            #expect(counts["created"] as? Int == 3000 && counts["updated"] as? Int == 0)
            let stored = try await bridge.store.followerCounts(activityKey: "M-2")
            #expect(stored.onChannel == 1000 && stored.updating == 2000)

            let again = try await send(
                bridge, .post, "M-2/followers", body: lines[0..<10].joined(separator: "\n"),
                type: "application/x-ndjson")
            #expect(try jsonObject(again.text)["unchanged"] as? Int == 10)

            let bad = try await send(
                bridge, .post, "M-2/followers",
                body: #"{"device": "x", "update-token": "\#(Self.update)"}"# + "\n{\"device\": \"y\"}\n",
                type: "application/x-ndjson")
            #expect(bad.status == 422, "\(bad.text)")
            #expect(
                try jsonObject(bad.text)["reason"] as? String
                    == "line 2: a follower needs an update-token or a push-to-start-token (iPhone), or an fcm-token (Android)"
            )
            #expect(try await bridge.store.follower(device: "x", activityKey: "M-2") == nil)

            let json = try await send(bridge, .post, "M-2/followers", body: lines[0])
            #expect(json.status == 415)
        }
    }

    @Test func theImportFileIsReadInBatches() async throws {
        try await StoreFixture.withStore(.sqlite) { store in
            _ = try await store.registerActivity(
                ActivityRegistration(activityKey: "M-3", targets: ActivityTargets(), source: "doordash"),
                now: BridgeClock.now())
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "followers-\(UUID().uuidString).ndjson")
            defer { try? FileManager.default.removeItem(at: file) }
            let text = (0..<2500).map {
                #"{"device": "d-\#($0)", "push-to-start-token": "\#(String(format: "%032x", $0 + 1))"}"#
            }
            .joined(separator: "\n")
            try Data(text.utf8).write(to: file)
            let report = try await FollowerImport.run(path: file.path, activityKey: "M-3", store: store, batch: 1000)
            #expect(report.created == 2500)
            #expect(try await store.followerCounts(activityKey: "M-3").awaitingStart == 2500)
            try Data("{\"device\": \"z\"}\n".utf8).write(to: file)
            await #expect(throws: FollowerImport.Failure.self) {
                try await FollowerImport.run(path: file.path, activityKey: "M-3", store: store)
            }
            await #expect(throws: FollowerImport.Failure.notRegistered(activityKey: "nope")) {
                try await FollowerImport.run(path: file.path, activityKey: "nope", store: store)
            }
        }
    }
}
