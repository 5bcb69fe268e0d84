import Logging
import Synchronization

/// The loop of the bridge's workers: the dispatcher, and the senders through ``SenderCore``.
///
/// A pass, again at once while the pass says more is waiting (a full batch), then a wait until
/// ``wakeSignal`` rings or the wait the worker asks for runs out (its poll interval, or less
/// for a deadline it knows), until ``stop()`` or cancellation. A pass that throws is logged and
/// tried again after the wait, so nothing acknowledged is dropped; one cut short by a
/// cancellation ends the loop quietly (its transaction rolls back, its claims' leases run out).
/// After a stop, not a cancellation, the worker's `stopped` runs once (a sender gives back its
/// claims there).
///
/// On SQLite the loop runs on the store's own thread (its task executor), so that the worker's
/// store calls, which it makes all the time, need no thread hop each way; on PostgreSQL (no
/// executor) on Swift's shared pool.
final class WorkerLoop: Sendable {
    /// Rung when there is new work: the wait ends at once (a ring while nobody waits is kept).
    let wakeSignal = WakeSignal()
    private let stopping = Mutex(false)
    private let executor: (any TaskExecutor)?
    private let logger: Logger
    private let failure: Logger.Message

    /// - Parameters:
    ///   - executor: the store's ``DispatchStore/taskExecutor``, preferred while the loop runs.
    ///   - failure: what the log says when a pass fails, like "dispatch failed; retrying".
    init(executor: (any TaskExecutor)?, logger: Logger, failure: Logger.Message) {
        self.executor = executor
        self.logger = logger
        self.failure = failure
    }

    /// Runs passes until ``stop()`` or until the task is cancelled.
    /// - Parameters:
    ///   - pass: one pass; true when more waits, so the next goes at once.
    ///   - wait: the longest wait for a ring before the next pass.
    ///   - stopped: runs once after a stop (not after a cancellation).
    func run(
        pass: () async throws -> Bool, wait: () -> Duration, stopped: () async -> Void = {}
    ) async {
        await withTaskExecutorPreference(executor) {
            while !Task.isCancelled, !isStopping {
                do {
                    while try await pass(), !Task.isCancelled, !isStopping {}
                } catch {
                    if Task.isCancelled { return }
                    logger.error(failure, metadata: ["error": "\(error)"])
                }
                if isStopping { break }
                await wakeSignal.wait(upTo: wait())
            }
            guard isStopping, !Task.isCancelled else { return }
            await stopped()
        }
    }

    /// Ends ``run(pass:wait:stopped:)`` once the pass in flight is over.
    func stop() {
        stopping.withLock { $0 = true }
        wakeSignal.ring()
    }

    /// Whether ``stop()`` was called.
    var isStopping: Bool { stopping.withLock { $0 } }
}
