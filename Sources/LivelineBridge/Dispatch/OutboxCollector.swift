import Foundation
import Liveline

/// The engine's sink in a dispatch step: each push becomes an ``OutboxPush`` with its final
/// bytes and headers, written with the step; a push the engine refuses (too large) becomes
/// the step's error.
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

    init(activityKey: String, topic: String, receivedAt: Millis?) {
        self.activityKey = activityKey
        self.topic = topic
        self.receivedAt = receivedAt
    }

    mutating func receive(_ push: Push, from activity: ActivityEngine) {
        let fromWebhook = (push.reason.kind == .event || push.reason.kind == .beat) && push.reason.held == 0
        pushes.append(
            OutboxPush(
                activityKey: activityKey, payload: push.payload, headers: PushHeaders(push, topic: topic),
                dueAt: push.time, kind: push.event,
                receivedAt: fromWebhook ? receivedAt : nil
            ))
        reasons.append(push.reason.description)
        if fromWebhook { receivedAt = nil }
    }

    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        problems.append("a \(push.event.rawValue) push (\(push.reason)) was not sent: \(problem)")
    }
}
