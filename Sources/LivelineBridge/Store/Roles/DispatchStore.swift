import Liveline

/// The store as ``BridgeDispatcher`` sees it: passes over the activities with work, and one
/// activity leased for a dead letter's replay.
public protocol DispatchStore: Sendable {
    /// The thread the store works on, when it has one of its own (SQLite): the bridge's loops
    /// that call the store all the time prefer it, so their calls need no thread hop each way.
    /// nil (PostgreSQL, over the network): they run on Swift's shared pool.
    var taskExecutor: (any TaskExecutor)? { get }

    /// One dispatch pass in one transaction: claims up to `limit` registered activities that
    /// have work (pending events, or a deadline at or before `now`), a target their next push
    /// can go to, and no live lease of another instance; runs `step` on each, and writes what
    /// it returns. The transaction's locks hold the activities while `step` runs, so no lease
    /// is written and none can be lost; `step` must be quick and must not call the store.
    /// Returns the commits written, in claim order.
    func dispatchPass(
        limit: Int, now: Millis, step: @escaping @Sendable (ActivityWork) -> DispatchCommit
    ) async throws -> [DispatchCommit]

    /// Leases one activity to `instance` whether or not it has work (a dead letter's replay);
    /// nil when it is not registered or another instance holds it.
    func claimActivity(_ key: String, instance: String, lease: Duration, now: Millis) async throws -> ActivityWork?

    /// Writes steps of leased activities in one transaction: each only if `instance` still
    /// holds that activity's lease. Returns, per commit, whether it was written; a step whose
    /// lease was lost to another instance writes nothing.
    func commitDispatch(_ commits: [DispatchCommit], instance: String) async throws -> [Bool]
}

extension DispatchStore {
    /// Writes one step of a leased activity (see ``commitDispatch(_:instance:)-([DispatchCommit],_)``).
    public func commitDispatch(_ commit: DispatchCommit, instance: String) async throws -> Bool {
        try await commitDispatch([commit], instance: instance).first ?? false
    }
}
