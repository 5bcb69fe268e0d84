/// The streams of ``MockAPNsServer/events(bufferingNewest:)``: each gets every answered push.
///
/// Part of ``MockStorage``, changed under ``MockAPNsState``'s lock; records are yielded to the
/// streams after the lock is released (``StreamAnswer/publish()``).
struct PushSubscribers {
    private var continuations: [Int: AsyncStream<AnsweredPush>.Continuation] = [:]
    private var nextID = 0

    var isEmpty: Bool { continuations.isEmpty }
    var all: [AsyncStream<AnsweredPush>.Continuation] { Array(continuations.values) }

    /// Adds a stream; returns its id, for ``remove(_:)``.
    mutating func add(_ continuation: AsyncStream<AnsweredPush>.Continuation) -> Int {
        let id = nextID
        nextID += 1
        continuations[id] = continuation
        return id
    }

    mutating func remove(_ id: Int) {
        continuations.removeValue(forKey: id)
    }

    /// Removes every stream, returning them to be finished outside the lock.
    mutating func removeAll() -> [AsyncStream<AnsweredPush>.Continuation] {
        defer { continuations = [:] }
        return all
    }
}
