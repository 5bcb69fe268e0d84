/// What the mock answers to one request stream: the response, what the connection does next,
/// and the answered push its event streams are owed.
///
/// Made under ``MockAPNsState``'s lock; ``publish()`` runs after the lock is released.
struct StreamAnswer {
    var response: StreamResponse
    var directive: ConnectionDirective = .none
    var publication = PushPublication()

    /// Yields the answered push to the event streams.
    func publish() { publication.publish() }
}

/// An answered push owed to the event streams of ``MockAPNsServer/events(bufferingNewest:)``:
/// taken under the lock, yielded after it.
struct PushPublication {
    /// nil when nobody listens.
    var record: AnsweredPush?
    var subscribers: [AsyncStream<AnsweredPush>.Continuation] = []

    func publish() {
        guard let record else { return }
        for subscriber in subscribers { subscriber.yield(record) }
    }
}
