/// What the mock answers to one request stream: the response, what the connection does next,
/// and the push record its event streams are owed.
///
/// Made under ``MockAPNsState``'s lock; ``publish()`` runs after the lock is released.
struct StreamAnswer {
    var response: StreamResponse
    var directive: ConnectionDirective = .none
    var publication = PushPublication()

    /// Yields the record to the event streams.
    func publish() { publication.publish() }
}

/// A push record owed to the event streams of ``MockAPNsServer/events(bufferingNewest:)``:
/// taken under the lock, yielded after it.
struct PushPublication {
    /// nil when nobody listens.
    var record: PushRecord?
    var subscribers: [AsyncStream<PushRecord>.Continuation] = []

    func publish() {
        guard let record else { return }
        for subscriber in subscribers { subscriber.yield(record) }
    }
}
