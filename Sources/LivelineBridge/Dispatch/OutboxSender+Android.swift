import Liveline
import LivelineAPNs
import LivelineFCM

/// The outbox's Android half: a key registered with an `fcm-token` is sent each push's FCM
/// message (``OutboxPush/android``) through the bridge's FCM client (``APNsClients/fcm``, the
/// one Android followers' messages go through), one attempt per pass, and FCM's answer is
/// recorded as APNs' is, by the one ``AnswerPolicy``:
///
/// - delivered: the push leaves the outbox; FCM's message name is its answer's id;
/// - `UNREGISTERED`, or `INVALID_ARGUMENT` for the token: the push goes to the dead letters and
///   the FCM token is forgotten; the activity stays, its later pushes waiting for a new one;
/// - `UNAVAILABLE`, `INTERNAL`, `QUOTA_EXCEEDED` or a transport failure: tried again after FCM's
///   `Retry-After` (or the sender's back-off), a dead letter after the last attempt;
/// - another refusal (a message FCM cannot take): a dead letter at once;
/// - a configuration error (`SENDER_ID_MISMATCH`, `THIRD_PARTY_AUTH_ERROR`, a refused service
///   account), or a bridge without FCM: the push is held for ``AndroidFanOut/configurationHold``,
///   its attempt not counted, and the problem logged.
extension OutboxSender {
    /// What to write for each of `pushes`, in order; nil where a stop's cutoff came first. The
    /// messages go as one batch with one waiter (``FCMClient/sendOnce(_:)``), not a task each.
    func androidDecisions(_ pushes: [ClaimedPush], now: Millis) async -> [Decision?] {
        // After a stop's cutoff nothing more goes: those are claimed again by the next pass.
        guard !core.cutoff.hasFired else { return pushes.map { _ in nil } }
        guard let destination = core.clients.fcm else { return pushes.map { noFCM($0, now: now) } }
        var decisions = [Decision?](repeating: nil, count: pushes.count)
        var requests: [FCMSendRequest] = []
        var sent: [Int] = []
        for (index, claimed) in pushes.enumerated() {
            switch Self.request(for: claimed, project: destination.project) {
            case .success(let request):
                requests.append(request)
                sent.append(index)
            case .failure(let refusal):
                decisions[index] = Decision(
                    outcome: .undeliverable(
                        claimed.id, answer: nil, error: refusal.reason, forgetToken: refusal.forgetsToken, now: now),
                    error: refusal.reason, retryReason: "")
            }
        }
        for (index, outcome) in zip(sent, await destination.client.sendOnce(requests)) {
            decisions[index] = decision(pushes[index], answered: outcome, project: destination.project, now: now)
        }
        return decisions
    }

    /// A push to an Android key on a bridge without FCM: held, and the problem logged.
    private func noFCM(_ claimed: ClaimedPush, now: Millis) -> Decision {
        let error = "no FCM: the bridge has no fcm: credentials; the push waits"
        core.logger.error(
            "an activity registered with an fcm-token waits: the bridge has no fcm: credentials",
            metadata: ["activity": "\(claimed.push.activityKey)"])
        return Decision(
            outcome: .held(claimed.id, answer: nil, error: error, until: now + AndroidFanOut.configurationHold),
            error: error, retryReason: "halted")
    }

    /// What FCM's answer to `claimed`'s message means for the push.
    private func decision(
        _ claimed: ClaimedPush, answered outcome: FCMSendOutcome, project: String, now: Millis
    )
        -> Decision
    {
        let answeredAt = BridgeClock.now()
        let reason = outcome.error.flatMap { $0.errorCode?.rawValue ?? $0.status }
        observer.pushAnswered(
            platform: .android, status: outcome.status, reason: reason ?? (outcome.isDelivered ? nil : "transport"))
        let answer = PushAnswer(
            at: answeredAt, status: outcome.status, reason: reason, apnsID: outcome.messageName, platform: .android)
        var action = outcome.action
        // The client tried once; the push's own attempts decide whether it is tried again.
        if case .giveUp = action { action = core.action(for: outcome.answer, attempt: claimed.attempts + 1) }
        let described = "FCM answered \(outcome.status == 0 ? "nothing" : String(outcome.status)): \(outcome.cause)"
        switch action {
        case .deliver:
            return Decision(outcome: .sent(claimed.id, answer: answer), error: nil, retryReason: "")
        case .retry(let after), .renewTokenAndRetry(let after):
            return Decision(
                outcome: .failed(
                    claimed.id, answer: answer, error: described, retryAt: now + after,
                    maxAttempts: configuration.retry.maxAttempts),
                error: described, retryReason: reason ?? "transport")
        case .giveUp:
            let error = "\(described): gave up after \(claimed.attempts + 1) attempts"
            return Decision(
                outcome: .undeliverable(claimed.id, answer: answer, error: error, forgetToken: false, now: answeredAt),
                error: error, retryReason: "")
        case .forgetToken:
            let error = "\(described): the fcm-token is no longer valid; register a new one"
            return Decision(
                outcome: .undeliverable(claimed.id, answer: answer, error: error, forgetToken: true, now: answeredAt),
                error: error, retryReason: "")
        case .reject:
            return Decision(
                outcome: .undeliverable(
                    claimed.id, answer: answer, error: described, forgetToken: false, now: answeredAt),
                error: described, retryReason: "")
        case .stop(let problem):
            core.logger.error(
                "FCM refused the bridge's setup; the activity's push waits and is tried again",
                metadata: [
                    "activity": "\(claimed.push.activityKey)", "problem": "\(problem)",
                    "project": "\(project)",
                ])
            let error = "FCM refused the setup: \(problem); the push waits"
            return Decision(
                outcome: .held(claimed.id, answer: answer, error: error, until: now + AndroidFanOut.configurationHold),
                error: error, retryReason: "halted")
        }
    }

    /// Why a push cannot be sent to FCM at all, and whether that is its token's fault.
    struct AndroidRefusal: Error {
        var reason: String
        var forgetsToken = false
    }

    /// The FCM request for a claimed push to its activity's FCM token.
    static func request(for claimed: ClaimedPush, project: String) -> Result<FCMSendRequest, AndroidRefusal> {
        guard let message = claimed.push.android else {
            return .failure(
                AndroidRefusal(
                    reason:
                        "no Android message: the push was decided while the story had no android: block or the key was no Android phone"
                ))
        }
        guard let token = claimed.target.fcmToken, let target = FCMTarget(parsing: token) else {
            return .failure(AndroidRefusal(reason: "bad fcm-token", forgetsToken: true))
        }
        do {
            let fields = try FCMMessageFields(parsing: message)
            return .success(try FCMSendRequest(project: project, target: target, fields: fields))
        } catch {
            return .failure(AndroidRefusal(reason: "the FCM message cannot be sent: \(error)"))
        }
    }
}
