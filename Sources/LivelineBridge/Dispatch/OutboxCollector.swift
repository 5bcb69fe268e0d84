import Foundation
import Liveline

/// The engine's sink in a dispatch step: each push becomes an ``OutboxPush`` with its final
/// bytes and headers, written with the step; a renewal's two pushes become one
/// ``RenewalPushes``; a push the engine refuses (too large) becomes the step's error.
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

    init(activityKey: String, topic: String, receivedAt: Millis?) {
        self.activityKey = activityKey
        self.topic = topic
        self.receivedAt = receivedAt
    }

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
        pushes.append(outboxPush(push, receivedAt: fromWebhook ? receivedAt : nil))
        reasons.append(push.reason.description)
        if fromWebhook { receivedAt = nil }
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
