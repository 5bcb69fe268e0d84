import Foundation
import Liveline

/// The delivery history as the API shows it: a ``PushRecord`` as a JSON object, a follower's
/// last push, and links to the followers a fan-out (or a renewal) failed for.
enum PushHistoryView {
    static func entry(_ record: PushRecord) -> StateObject {
        var object = StateObject([
            ("id", .int(Int(record.id))), ("kind", .string(record.kind.rawValue)), ("priority", .int(record.priority)),
            ("reason", .string(record.reason)), ("outcome", .string(record.outcome.rawValue)),
        ])
        if let state = contentState(of: record.payload) { object["content-state"] = state }
        object["stored-at"] = JSONAnswer.time(record.storedAt)
        object["sent-at"] = record.sentAt.map(JSONAnswer.time) ?? .null
        object["answered-at"] = record.answeredAt.map(JSONAnswer.time) ?? .null
        if let renewal = record.renewal { object["renewal"] = .int(Int(renewal)) }
        if let fanOut = record.fanOut {
            object["instances"] = .array(record.instances.map(StateValue.string))
            let platforms: [(String, StateValue)] = [
                (
                    "ios",
                    .object(
                        StateObject([
                            ("sent", .int(fanOut.sent - fanOut.android.sent)),
                            ("failed", .int(fanOut.failed - fanOut.android.failed)),
                        ]))
                ),
                (
                    "android",
                    .object(
                        StateObject([
                            ("sent", .int(fanOut.android.sent)), ("failed", .int(fanOut.android.failed)),
                        ]))
                ),
            ]
            let tally: [(String, StateValue)] = [
                ("sent", .int(fanOut.sent)), ("failed", .int(fanOut.failed)), ("held", .int(fanOut.held)),
                ("platforms", .object(StateObject(platforms))),
                ("failures", .array(fanOut.failures.map { .object(failure($0)) })),
            ]
            // A renewal's push to the followers is counted as a fan-out is, under its own name.
            if record.renewal == nil {
                object["fan-out"] = .object(StateObject([("id", .int(Int(fanOut.id)))] + tally))
            } else {
                object["followers"] = .object(StateObject(tally))
            }
        } else {
            // Each platform's answer under its own names: FCM's error status and message name.
            object["platform"] = .string(record.platform.rawValue)
            object["status"] = record.status.map(StateValue.int) ?? .null
            switch record.platform {
            case .ios:
                object["apns-reason"] = JSONAnswer.text(record.apnsReason)
                object["apns-id"] = JSONAnswer.text(record.apnsID)
            case .android:
                object["fcm-error"] = JSONAnswer.text(record.apnsReason)
                object["fcm-message"] = JSONAnswer.text(record.apnsID)
            }
            object["instance"] = JSONAnswer.text(record.instances.first)
            object["attempt"] = .int(record.attempt)
        }
        if let error = record.error { object["error"] = .string(error) }
        return object
    }

    /// A fan-out's failures for one reason, with links to a few of the followers.
    static func failure(_ summary: FanOutFailureSummary) -> StateObject {
        StateObject([
            ("reason", .string(summary.reason)), ("count", .int(summary.count)),
            ("tokens", .array(summary.sample.map(StateValue.string))),
            ("followers", .array(summary.devices.map { .string(followerPath(summary.activityKey, device: $0)) })),
            ("failed-at", JSONAnswer.time(summary.failedAt)),
        ])
    }

    /// What a follower's `GET` adds: its newest push and what became of it for this device.
    static func lastPush(_ last: FollowerLastPush) -> StateObject {
        var object = entry(last.push)
        switch last.outcome {
        case .queued:
            object["delivery"] = .string("queued")
        case .delivered:
            object["delivery"] = .string("delivered")
        case .failed(let reason):
            object["delivery"] = .string("failed")
            object["delivery-reason"] = .string(reason)
        case .inDoubt:
            object["delivery"] = .string("in-doubt")
        case .held(let error, let until):
            object["delivery"] = .string("held")
            object["delivery-error"] = JSONAnswer.text(error)
            object["held-until"] = JSONAnswer.time(until)
        case .retrying(let error, let dueAt):
            object["delivery"] = .string("retrying")
            object["delivery-error"] = JSONAnswer.text(error)
            object["retry-at"] = JSONAnswer.time(dueAt)
        }
        object["delivery-answered-at"] = last.answeredAt.map(JSONAnswer.time) ?? .null
        return object
    }

    /// `/v1/activities/{key}/followers/{device}`, each part percent-encoded.
    static func followerPath(_ key: String, device: String) -> String {
        "/v1/activities/\(pathPart(key))/followers/\(pathPart(device))"
    }

    static func pathPart(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The payload's `aps.content-state`, if it is JSON with one.
    static func contentState(of payload: [UInt8]) -> StateValue? {
        guard case .object(let body)? = try? JSONParser.parse(payload), case .object(let aps)? = body["aps"] else {
            return nil
        }
        return aps["content-state"]
    }
}
