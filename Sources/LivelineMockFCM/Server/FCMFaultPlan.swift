/// Errors the mock FCM answers instead of delivering, to see what a sender does with them:
/// the next `count` sends (after the request checks pass; to one app instance, or to any) get
/// `answer`, in the order added.
public struct FCMFaultPlan: Sendable {
    public struct Fault: Sendable, Hashable {
        public var answer: FCMErrorAnswer
        public var count: Int
        /// Only sends to this app instance; nil for any.
        public var recipient: FCMRecipient?

        public init(_ answer: FCMErrorAnswer, count: Int = 1, recipient: FCMRecipient? = nil) {
            self.answer = answer
            self.count = count
            self.recipient = recipient
        }
    }

    public var pending: [Fault]

    public init(_ pending: [Fault] = []) {
        self.pending = pending
    }

    /// The answer for a send to `recipient`, if a fault is due for it; counts it.
    mutating func take(for recipient: FCMRecipient) -> FCMErrorAnswer? {
        pending.removeAll { $0.count <= 0 }
        guard let index = pending.firstIndex(where: { $0.recipient == nil || $0.recipient == recipient }) else {
            return nil
        }
        pending[index].count -= 1
        return pending[index].answer
    }
}
