import Liveline

/// A key's fan-outs as ``FanOutSender`` sees them: ranges of followers claimed, sent and recorded.
public protocol FanOutStore: Sendable {
    /// See ``DispatchStore/taskExecutor``.
    var taskExecutor: (any TaskExecutor)? { get }

    /// Claims the next range of up to `limit` followers of a running fan-out (keyset by
    /// follower id), or a range whose claim expired (its instance died). A fan-out is only
    /// claimed once no older fan-out of its key and kind has a range in flight, so a device
    /// never gets an older push after a newer one. A fan-out in `excluding` is taken only when
    /// no other has a range to give, so one pass serves several keys' fan-outs before it takes a
    /// second range of one. A fan-out of a topic in `haltedTopics` (`""` for none) hands out no
    /// range: sending to its app is halted in every environment, so its followers wait where its
    /// cursor is. Nil when there is nothing to send.
    func claimFanOutRange(
        limit: Int, instance: String, lease: Duration, now: Millis, excluding: [Int64], haltedTopics: [String]
    ) async throws -> FanOutRange?

    /// Writes a range's answers in one transaction and gives the range back as done.
    func writeFanOut(
        _ range: FanOutRange, answers: [FollowerAnswer], instance: String, now: Millis
    ) async throws -> FanOutProgress

    /// Claims up to `limit` followers whose exception is due, each with the newest push of its
    /// key and kind.
    func claimCatchUps(limit: Int, instance: String, lease: Duration, now: Millis) async throws -> [FollowerCatchUp]

    /// Writes catch-up answers in one transaction. A follower sent a push older than its key's
    /// newest is due again at once (with the newest).
    func writeCatchUps(
        _ answers: [(catchUp: FollowerCatchUp, outcome: FollowerOutcome)], now: Millis
    ) async throws -> FanOutProgress

    /// Gives back every range and catch-up `instance` holds (a stopping instance's unanswered
    /// work), so another instance sends them at once instead of after their lease. Returns how
    /// many ranges and catch-ups it gave back.
    func releaseFanOutClaims(instance: String) async throws -> Int
}

extension FanOutStore {
    /// The next range of any fan-out (see ``claimFanOutRange(limit:instance:lease:now:excluding:haltedTopics:)``).
    public func claimFanOutRange(
        limit: Int, instance: String, lease: Duration, now: Millis
    ) async throws -> FanOutRange? {
        try await claimFanOutRange(
            limit: limit, instance: instance, lease: lease, now: now, excluding: [], haltedTopics: [])
    }
}
