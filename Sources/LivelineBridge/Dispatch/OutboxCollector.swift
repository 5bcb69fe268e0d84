import Foundation
import Liveline
import LivelineFCM

/// The engine's sink in a dispatch step: each push becomes an ``OutboxPush`` with its final
/// bytes and headers, written with the step; a renewal's two pushes become one
/// ``RenewalPushes``; a push the engine refuses (too large) becomes the step's error. A story with
/// an `android:` block also gets each push's FCM message (``OutboxPush/android``), made by
/// Android's rules (``AndroidPlatform``) from the same decision.
struct OutboxCollector: PushSink {
    let activityKey: String
    let topic: String
    /// The earliest receipt among the webhooks applied in this step, carried by the first
    /// push sent at once for them (the receipt-to-APNs metric measures the bridge, not the
    /// policy: a push the engine held for `min-interval` or the budget carries none).
    var receivedAt: Millis?
    var pushes: [OutboxPush] = []
    /// The engine's reason for each push, in the order of ``pushes``.
    var reasons: [String] = []
    var problems: [String] = []
    /// The renewals decided, each its successor's start and its predecessor's end.
    var renewals: [RenewalPushes] = []
    /// A renewal's start and its reason, until its end follows (the engine hands them over
    /// together).
    private var renewalStart: (push: OutboxPush, reason: String)?
    /// Android's rules for this step's pushes. Unpaced: the engine's `min-interval` already
    /// spaces a bridge's pushes, and every push of a fan-out must carry its message.
    private var android = AndroidPlatform(spacing: 0)
    /// The engine's id for the key's activity, which `android` remembers it by.
    private let activity: Int

    /// A sink for one step of `activityKey`, whose Android phones were last sent what `android`
    /// remembers (the key's stored ``AndroidMemory``; nil before its first message).
    init(activityKey: String, topic: String, receivedAt: Millis?, activity: Int, android memory: AndroidMemory?) {
        self.activityKey = activityKey
        self.topic = topic
        self.receivedAt = receivedAt
        self.activity = activity
        if let memory { android.remember(memory, for: activity) }
    }

    /// What the key's Android phones were last sent, after this step: stored with its state.
    var androidMemory: AndroidMemory { android.memory(of: activity) }

    mutating func receive(_ push: Push, from activity: ActivityEngine) {
        switch push.reason.kind {
        case .renewalStart:
            renewalStart = (outboxPush(push, receivedAt: nil), push.reason.description)
            return
        case .renewalEnd:
            if let start = renewalStart {
                renewals.append(
                    RenewalPushes(
                        activityKey: activityKey, generation: push.generation + 1, start: start.push,
                        end: outboxPush(push, receivedAt: nil), startReason: start.reason,
                        endReason: push.reason.description))
            }
            renewalStart = nil
            return
        default:
            break
        }
        let fromWebhook = (push.reason.kind == .event || push.reason.kind == .beat) && push.reason.held == 0
        var outbox = outboxPush(push, receivedAt: fromWebhook ? receivedAt : nil)
        if activity.program.spec.android != nil, let message = android.receive(push, from: activity).last {
            outbox.android = androidFields(message)
        }
        pushes.append(outbox)
        reasons.append(push.reason.description)
        if fromWebhook { receivedAt = nil }
    }

    /// The message's fields, named for the activity key rather than the story's activity (one
    /// story serves many keys): the notification's tag on the phone, and the collapse key.
    private func androidFields(_ message: AndroidMessage) -> [UInt8] {
        FCMMessageFields(
            data: FCMData(message.data.entries.map { $0.key == LiveUpdateKeys.activity ? ($0.key, activityKey) : $0 }),
            priority: message.priority, ttlSeconds: message.ttlSeconds,
            collapseKey: message.collapseKey == nil ? nil : activityKey
        ).bytes
    }

    private func outboxPush(_ push: Push, receivedAt: Millis?) -> OutboxPush {
        OutboxPush(
            activityKey: activityKey, payload: push.payload, headers: PushHeaders(push, topic: topic),
            dueAt: push.time, kind: push.event, receivedAt: receivedAt)
    }

    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        problems.append("a \(push.event.rawValue) push (\(push.reason)) was not sent: \(problem)")
    }
}
