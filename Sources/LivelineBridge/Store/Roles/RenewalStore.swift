import Liveline

/// Renewals as ``RenewalSender`` sees them: a key's renewal goes to its own activity and its
/// followers in claimed ranges, then each device's due steps (a start to retry, an end owed).
///
/// While a key's renewal runs, the key's pushes decided after it wait (its outbox, fan-outs and
/// catch-ups), so that no device receives a newer push on its predecessor before the
/// predecessor's end; the renewal waits in turn for the key's pushes decided before it.
public protocol RenewalStore: Sendable {
    /// See ``DispatchStore/taskExecutor``.
    var taskExecutor: (any TaskExecutor)? { get }

    /// Claims the next range of a running renewal whose older pushes are out (the key's own
    /// activity first, then up to `limit` followers by id), or a range whose instance died
    /// (``RenewalRange/resumed``). Nil when there is none.
    func claimRenewalRange(limit: Int, instance: String, lease: Duration, now: Millis) async throws -> RenewalRange?

    /// Writes a range's answers in one transaction and gives the range back as done: an end
    /// owed for each start taken (and the device's update token retired, unless its app has
    /// already reported the successor's), a step for each start to retry or held, and each
    /// answer in the delivery history (sent by `instance` at `now`).
    func writeRenewalRange(
        _ range: RenewalRange, answers: [RenewalAnswer], instance: String, now: Millis
    ) async throws

    /// Claims up to `limit` due steps, each with its renewal's pushes.
    func claimRenewalSteps(limit: Int, instance: String, lease: Duration, now: Millis) async throws -> [RenewalStep]

    /// Writes the steps' answers in one transaction, and in the delivery history (sent by
    /// `instance` at `now`); a renewal with nothing left is done.
    func writeRenewalSteps(
        _ answers: [(step: RenewalStep, answer: RenewalAnswer)], instance: String, now: Millis
    ) async throws

    /// Gives back the ends `instance` holds (a stopping instance's), so another instance sends
    /// them at once. Ranges and starts are not given back: whether they reached APNs is not
    /// known, and they are in doubt once their lease ends. Returns how many.
    func releaseRenewalClaims(instance: String) async throws -> Int

    /// The key's newest renewal, if any.
    func newestRenewal(activityKey: String) async throws -> RenewalStatus?
}
