import Foundation
import Liveline

/// What `GET /v1/activities/{key}` shows of an activity: its registration, where its story
/// stands, and how its last push went.
///
/// ```json
/// {"key": "D-58213", "source": "doordash", "scenario": "delivery.yaml", "lifecycle": "active",
///  "update-token": "…9c3e51aa", "push-to-start-token": null, "channel": null,
///  "environment": "production", "frequent-updates": false, "pending-events": 0, "queued-pushes": 0,
///  "start-in-doubt": false,
///  "last-push": {"at": "2026-11-23T13:05:00.412Z", "status": 200, "reason": null, "apns-id": "…"},
///  "last-error": null, "next-deadline": "2026-11-23T13:15:00.000Z",
///  "updated-at": "2026-11-23T13:05:00.398Z", "content-state": {"status": "picked-up", …}}
/// ```
///
/// Tokens show only their last 8 hex digits: enough to tell which device registered, not
/// enough to push to it. `environment` is where its tokens go: the one it was registered for,
/// or the configuration's `apns.environment`. The content-state comes from the dispatcher,
/// which owns the engine state; it is `null` before the activity has one. `start-in-doubt` is
/// true while the activity's start was sent by an instance that stopped before APNs' answer
/// was recorded: it is not sent again until the app reports an update token or a new
/// push-to-start token.
///
/// `platform` is `android` for a key registered with an `fcm-token` (shown masked, as
/// `fcm-token`), else `ios`. An Android key whose story has no `android:` block is sent nothing,
/// and `warning` says so (the registration's answer shows it too).
///
/// A key that renews (`Renewal`) shows `renew` (`{"before", "until", "from": "key" | "scenario"}`,
/// or `null`) and its newest renewal, when it has one: `{"generation", "at", "state": "running" |
/// "done", "renewed", "refused", "in-doubt", "pending"}`.
struct ActivityStatusView {
    var activity: RegisteredActivity
    var pendingEvents: Int
    /// Pushes waiting in the outbox (to be sent, or retried).
    var queuedPushes: Int
    /// Whether its start is in doubt (``RegistryStore/startInDoubt(for:)``).
    var startInDoubt = false
    /// The JSON bytes of the current content-state, if any.
    var contentState: [UInt8]?
    /// The source the activity plays, if still configured.
    var source: SourceConfiguration?
    /// The environments the bridge serves, to show the environment of a registration that named none.
    var environments: APNsEnvironments
    /// The key's newest renewal, if any.
    var renewal: RenewalStatus? = nil

    var json: StateObject {
        var object = StateObject()
        object["key"] = .string(activity.activityKey)
        object["source"] = .string(activity.source)
        object["scenario"] = JSONAnswer.text(source.map { ($0.scenario.file as NSString).lastPathComponent })
        object["lifecycle"] = .string(activity.lifecycle.rawValue)
        object["update-token"] = JSONAnswer.text(activity.updateToken.map(Self.masked))
        object["push-to-start-token"] = JSONAnswer.text(activity.pushToStartToken.map(Self.masked))
        object["channel"] = JSONAnswer.text(activity.channelID)
        object["platform"] = .string(activity.platform.rawValue)
        if let token = activity.fcmToken {
            object["fcm-token"] = .string(Self.masked(token))
            if let warning = androidWarning { object["warning"] = .string(warning) }
        }
        object["environment"] = .string(environments.resolve(activity.environment).rawValue)
        object["frequent-updates"] = .bool(activity.frequentUpdates)
        object["renew"] = renewJSON
        if let renewal {
            object["renewal"] = .object(
                StateObject([
                    ("generation", .int(renewal.generation)), ("at", JSONAnswer.time(renewal.decidedAt)),
                    ("state", .string(renewal.running ? "running" : "done")), ("renewed", .int(renewal.renewed)),
                    ("refused", .int(renewal.refused)), ("in-doubt", .int(renewal.inDoubt)),
                    ("pending", .int(renewal.pendingSteps)),
                ]))
        }
        object["pending-events"] = .int(pendingEvents)
        object["queued-pushes"] = .int(queuedPushes)
        object["start-in-doubt"] = .bool(startInDoubt)
        if let push = activity.lastPush {
            object["last-push"] = .object(
                StateObject([
                    ("at", JSONAnswer.time(push.at)), ("status", .int(push.status)),
                    ("reason", JSONAnswer.text(push.reason)),
                    ("apns-id", JSONAnswer.text(push.apnsID)),
                ]))
        } else {
            object["last-push"] = .null
        }
        object["last-error"] = JSONAnswer.text(activity.lastError)
        object["next-deadline"] = activity.nextDeadline.map(JSONAnswer.time) ?? .null
        object["updated-at"] = JSONAnswer.time(activity.updatedAt)
        // Bytes that do not parse would make the whole answer unreadable: show null instead.
        object["content-state"] = contentState.flatMap { try? JSONParser.parse($0) } ?? .null
        return object
    }

    /// What an Android key is told when its story has no `android:` block: it is sent nothing.
    private var androidWarning: String? {
        guard let source, !ActivityRegistryAPI.hasAndroidStory(source.name, in: [source]) else { return nil }
        return
            "source '\(source.name)' plays \((source.scenario.file as NSString).lastPathComponent), whose story has no android: block: nothing is sent to this Android phone until it has one"
    }

    /// The renewal the key plays: its own, else its scenario's; null for none.
    private var renewJSON: StateValue {
        let scenario = source.flatMap { source in
            source.scenario.activities.indices.contains(source.activityIndex)
                ? source.scenario.activities[source.activityIndex].policy.renewal : nil
        }
        let chosen: (before: Millis, until: Millis, from: String)
        switch activity.renewal {
        case .off?: return .null
        case .on(let before, let until)?: chosen = (before, until, "key")
        case nil:
            guard let scenario else { return .null }
            chosen = (scenario.before, scenario.until, "scenario")
        }
        return .object(
            StateObject([
                ("before", .string(DurationText.format(chosen.before))),
                ("until", .string(DurationText.format(chosen.until))), ("from", .string(chosen.from)),
            ]))
    }

    /// `…` and the last 8 characters; nothing of a token too short to hide any of it.
    static func masked(_ token: String) -> String {
        token.count > 16 ? "…" + token.suffix(8) : "…"
    }
}
