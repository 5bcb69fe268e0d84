import Liveline
import Testing
@testable import LivelineBridge

/// `bridge send --follow`'s lines name who answered the activity's push: APNs for an iPhone's
/// key, FCM (with the message's name) for an Android phone's.
@Suite struct WebhookTraceTests {
    static func trace(platform: String) throws -> [String] {
        let body = """
            {"state":"applied","activity-key":"D-777","applied-at":"2026-11-27T23:41:43.263Z",
             "activity-status":{"platform":"\(platform)","lifecycle":"active",
               "last-push":{"at":"2026-11-27T23:41:43.300Z","status":200,"reason":null,"apns-id":"projects/p/messages/0:1"}}}
            """
        guard case .object(let answer) = try JSONParser.parse(Array(body.utf8)) else {
            Issue.record("not an object")
            return []
        }
        return WebhookTrace(answer: answer, conclusion: .answered).lines
    }

    @Test func anAndroidKeysPushIsAnsweredByFCM() throws {
        let lines = try Self.trace(platform: "android")
        #expect(
            lines.contains("FCM        200 at 2026-11-27T23:41:43.300Z · message projects/p/messages/0:1"), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("APNs") })
    }

    @Test func anIPhonesKeysPushIsAnsweredByAPNs() throws {
        let lines = try Self.trace(platform: "ios")
        #expect(
            lines.contains("APNs       200 at 2026-11-27T23:41:43.300Z · apns-id projects/p/messages/0:1"), "\(lines)")
    }
}
