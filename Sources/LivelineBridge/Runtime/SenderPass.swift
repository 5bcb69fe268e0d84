import Liveline
import Logging

/// What a sender supplies to ``SenderCore``, which runs it: its own pass over its own store,
/// and the claims it gives back when it stops.
protocol SenderPass: Sendable {
    /// One pass at `now`; true when more work waits, so that the next goes at once.
    func pass(now: Millis) async throws -> Bool

    /// Gives back the work this instance still claims (a stopping instance's), so another
    /// instance sends it at once; what it gave back, for the log (empty: nothing).
    func releaseClaims() async throws -> Logger.Metadata
}
