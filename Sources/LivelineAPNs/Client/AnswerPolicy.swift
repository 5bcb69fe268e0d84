import LivelineCore

/// What a sender does with one answer: the one place that decides it, for `liveline play` and
/// `liveline load` (through ``PushDelivery``) and the bridge's outbox and fan-out senders.
///
/// Each sender keeps only what is its own: where the attempt count lives, how a token is
/// forgotten, and how it waits while halted. FCM's answers (`LivelineFCM`) map to the same
/// ``PushServiceAnswer`` kinds, so an Android message is judged by this policy too.
/// docs/answers.md is the table of every APNs reason and FCM code and the action this policy
/// takes; tests check each of its rows against ``action(for:attempt:random:)``.
public struct AnswerPolicy: Sendable {
    /// The back-off between attempts and how many there are in all.
    public var retry: RetryPolicy
    /// The longest wait a `Retry-After` is honoured for; a longer one waits this long.
    public var longestRetryAfter: Duration

    /// A policy retrying by `retry`, honouring a `Retry-After` up to `longestRetryAfter` (an hour).
    public init(retry: RetryPolicy = RetryPolicy(), longestRetryAfter: Duration = .seconds(3600)) {
        self.retry = retry
        self.longestRetryAfter = longestRetryAfter
    }

    /// The action for `answer` to attempt `attempt` (1 for the first) of a push; `random` (in
    /// `0..<1`) draws the back-off's jitter.
    ///
    /// - Accepted: deliver.
    /// - Throttled or unavailable: retry after the `Retry-After` the service gave (at most
    ///   ``longestRetryAfter``), else after the jittered back-off; give up after the last attempt.
    /// - An expired credential: renew it and retry once. Expired again right after a renewal,
    ///   renewing cannot help (APNs: the clock is wrong; FCM: the account is refused): stop, with
    ///   the fix the answer carries (``ExpiredCredential/fixWhenRepeated``).
    /// - A token that is not valid: forget it. A request that is not valid: reject this push.
    /// - A setup problem: stop.
    public func action(for answer: PushServiceAnswer, attempt: Int, random: Double) -> AnswerAction {
        switch answer {
        case .accepted:
            return .deliver
        case .throttled(let reason, let retryAfter), .unavailable(let reason, let retryAfter):
            guard attempt < retry.maxAttempts else { return .giveUp(reason: reason) }
            return .retry(after: delay(afterAttempt: attempt, retryAfter: retryAfter, random: random))
        case .credentialExpired(let credential):
            guard attempt <= 1 else { return .stop(credential.repeatedProblem) }
            return .renewTokenAndRetry(after: delay(afterAttempt: attempt, retryAfter: nil, random: random))
        case .tokenInvalid(let problem):
            return .forgetToken(problem)
        case .requestInvalid(let reason):
            return .reject(reason: reason)
        case .misconfigured(let problem):
            return .stop(problem)
        }
    }

    /// The wait before the attempt after `attempt`: the service's `Retry-After` (capped), else
    /// the back-off.
    func delay(afterAttempt attempt: Int, retryAfter: Duration?, random: Double) -> Millis {
        if let retryAfter {
            return max(0, min(retryAfter.millis, longestRetryAfter.millis))
        }
        return retry.delay(beforeAttempt: attempt + 1, random: random)
    }
}

/// What a sender does about one answer (``AnswerPolicy``).
public enum AnswerAction: Sendable, Hashable {
    /// Delivered: done.
    case deliver
    /// Send the push again after `after` milliseconds; the attempt counts.
    case retry(after: Millis)
    /// The credential expired: sign a new provider token (the APNs client does, as soon as APNs
    /// allows) or fetch a new access token (FCM), and send again after `after` milliseconds.
    case renewTokenAndRetry(after: Millis)
    /// The token is gone or was never valid here: forget it and send it nothing more.
    case forgetToken(TokenProblem)
    /// This push can never be delivered; the token's later pushes still go.
    case reject(reason: String)
    /// The attempts ran out on a failure that could have passed (`reason`): this push is lost.
    case giveUp(reason: String)
    /// The setup is wrong: stop sending for this app and environment until it is fixed. The push
    /// is not at fault and waits (the bridge) or the run ends with the fix (`play`, `load`).
    case stop(ConfigurationProblem)
}

extension AnswerAction {
    /// The action's name, as docs/answers.md writes it: `deliver`, `retry`, `renew-and-retry`,
    /// `forget-token`, `reject`, `give-up`, `stop`.
    public var name: String {
        switch self {
        case .deliver: "deliver"
        case .retry: "retry"
        case .renewTokenAndRetry: "renew-and-retry"
        case .forgetToken: "forget-token"
        case .reject: "reject"
        case .giveUp: "give-up"
        case .stop: "stop"
        }
    }
}
