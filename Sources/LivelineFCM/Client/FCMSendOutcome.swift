import LivelineAPNs

/// What became of one message after ``FCMClient`` tried it as often as ``AnswerPolicy`` allows.
public struct FCMSendOutcome: Sendable, Hashable, CustomStringConvertible {
    /// What the policy made of the last answer, and so what to do with the message and its
    /// target now: ``AnswerAction/deliver``, ``AnswerAction/forgetToken(_:)`` (the app instance
    /// is gone), ``AnswerAction/reject(reason:)`` (this message can never be sent),
    /// ``AnswerAction/giveUp(reason:)`` (the attempts ran out) or ``AnswerAction/stop(_:)`` (fix
    /// the setup).
    public var action: AnswerAction
    /// The last answer, in the kinds the policy reads.
    public var answer: PushServiceAnswer
    /// The name FCM gave the message (`projects/{project}/messages/{id}`), once delivered.
    public var messageName: String?
    /// FCM's last error, when it answered one.
    public var error: FCMError?
    /// Why there was no answer at the last attempt (a refused connection, a timeout, an access
    /// token that could not be had), in words.
    public var failure: String?
    /// How many times the message was sent (a resend after renewing the access token counts).
    public var attempts: Int

    /// An outcome with the parts given.
    public init(
        action: AnswerAction, answer: PushServiceAnswer, messageName: String? = nil, error: FCMError? = nil,
        failure: String? = nil, attempts: Int
    ) {
        self.action = action
        self.answer = answer
        self.messageName = messageName
        self.error = error
        self.failure = failure
        self.attempts = attempts
    }

    /// Whether FCM accepted the message.
    public var isDelivered: Bool { action == .deliver }

    /// The HTTP status of the last answer: 200 when delivered, 0 when none came.
    public var status: Int { error?.httpStatus ?? (isDelivered ? 200 : 0) }

    /// What the last answer was, in words: FCM's error, or why none came.
    public var cause: String { error?.description ?? failure ?? answer.reason ?? "" }

    public var description: String {
        let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        switch action {
        case .deliver: return "delivered as \(messageName ?? "?") (\(tries))"
        case .giveUp, .retry, .renewTokenAndRetry: return "not delivered after \(tries): \(cause)"
        case .forgetToken(let problem): return "the app instance cannot be sent to (\(problem)): \(cause)"
        case .reject: return "FCM rejected the message: \(cause)"
        case .stop(let problem): return problem.description
        }
    }
}
