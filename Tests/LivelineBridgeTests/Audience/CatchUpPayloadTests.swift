import Foundation
import Liveline
import LivelineMockAPNs
import Testing
@testable import LivelineBridge

/// A follower who joins mid-story is sent the current state, not the news of an event from
/// before it joined: its catch-up push is the key's newest without the `alert`.
@Suite struct CatchUpPayloadTests {
    /// The `aps` of each push the mock accepted for `token`, in arrival order.
    static func aps(_ bridge: BridgeHarness, _ token: String) throws -> [NSDictionary] {
        try bridge.mock.pushes(token: token).filter { $0.status == 200 }.map { record in
            let data = try #require(record.payload?.data(using: .utf8))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return try #require(json["aps"] as? NSDictionary)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aLateFollowersCatchUpCarriesTheStateWithoutTheEarlierAlert(_ kind: StoreKind) async throws {
        try await withBridge(kind) { bridge in
            try await FanOutTests.registerAudience(bridge)
            let early = (1...3).map(FanOutTests.follower)
            _ = try await bridge.store.putFollowers(early, activityKey: "D-1", now: bridge.now)
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            try await bridge.settle()
            bridge.advance(seconds: 20)
            // "Arriving": an alert, relevance 100, high priority.
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED_DROPOFF_ARRIVAL"))
            try await bridge.settle()
            let earlyToken = try #require(early[0].updateToken)
            let reached = try #require(try Self.aps(bridge, earlyToken).last)
            #expect(reached["alert"] != nil, "\(reached)")

            // Two minutes later a fan follows: one push, the same state and timestamp, no alert.
            bridge.advance(seconds: 120)
            let late = FanOutTests.follower(9)
            _ = try await bridge.store.putFollowers([late], activityKey: "D-1", now: bridge.now)
            try await bridge.settle()
            let lateToken = try #require(late.updateToken)
            let caughtUp = try Self.aps(bridge, lateToken)
            try #require(caughtUp.count == 1)
            #expect(caughtUp[0]["alert"] == nil)
            let expected = try #require(reached.mutableCopy() as? NSMutableDictionary)
            expected.removeObject(forKey: "alert")
            #expect(caughtUp[0] == expected as NSDictionary, "\(caughtUp[0]) against \(expected)")
            #expect(
                caughtUp[0]["content-state"] != nil && caughtUp[0]["stale-date"] != nil
                    && caughtUp[0]["relevance-score"] != nil)
            #expect(bridge.shown(lateToken)["status"]?.stringValue == "arriving")

            // The next event is news to every follower, the late one too: its alert goes to all.
            bridge.advance(seconds: 20)
            try await bridge.receive("doordash", doordash("DELIVERY_CANCELLED"))
            try await bridge.settle()
            for follower in early + [late] {
                let token = try #require(follower.updateToken)
                let last = try #require(try Self.aps(bridge, token).last)
                #expect(
                    (last["alert"] as? [String: Any])?["title"] as? String == "Order cancelled", "\(follower.device)")
            }
        }
    }

    @Test func theAlertIsLeftOutAndEverythingElseKept() throws {
        let payload = Array(
            #"{"aps":{"timestamp":1800000000,"event":"update","content-state":{"score":"1-0","progress":0.5,"when":[1.25,2.0]},"stale-date":1800000900,"relevance-score":100,"alert":{"title":"GOAL!","body":"1-0","sound":"default"}}}"#
                .utf8)
        let quiet = try CatchUpPayload.withoutAlert(payload)
        #expect(
            String(decoding: quiet, as: UTF8.self)
                == #"{"aps":{"timestamp":1800000000,"event":"update","content-state":{"score":"1-0","progress":0.5,"when":[1.25,2.0]},"stale-date":1800000900,"relevance-score":100}}"#
        )
        let silent = Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8)
        #expect(try CatchUpPayload.withoutAlert(silent) == silent)
        #expect(throws: SQLRowError.self) { try CatchUpPayload.withoutAlert(Array("not json".utf8)) }
        #expect(throws: SQLRowError.self) { try CatchUpPayload.withoutAlert(Array(#"{"notaps":1}"#.utf8)) }
    }
}
