import Foundation
import Liveline
import LivelineAPNs
import Logging

/// What the bridge's senders (``OutboxSender``, ``FanOutSender``, ``RenewalSender``) have and
/// do the same way, so that each supplies only its pass (``SenderPass``): a client per
/// environment, the halts shared by every sender, the one answer policy, the stop's cutoff,
/// and the worker loop that runs the passes until a stop, then gives back what the instance
/// still claims.
final class SenderCore: Sendable {
    /// A client per environment; each push goes to its token's.
    let clients: APNsClients
    /// Where a configuration error halts an app and environment, shared by the senders.
    let halts: APNsHalts
    /// Where failures, refusals and what was given back are logged.
    let logger: Logger
    /// Fired by ``stop(cutoff:)``: a send still waiting for its answer then gives it up.
    let cutoff = SendCutoff()
    private let policy: AnswerPolicy
    private let loop: WorkerLoop
    private let pollInterval: Duration

    /// - Parameters:
    ///   - executor: the store's task executor, preferred while the loop runs.
    ///   - halts: shared with the other senders; nil: halts of its own (a sender alone).
    ///   - retry: the answer policy's back-off and attempts.
    ///   - pollInterval: how often a pass runs when nothing rings.
    ///   - failure: what the log says when a pass fails, like "sending fan-outs failed; retrying".
    init(
        executor: (any TaskExecutor)?, clients: APNsClients, halts: APNsHalts?, retry: RetryPolicy,
        pollInterval: Duration, logger: Logger, failure: Logger.Message
    ) {
        self.clients = clients
        self.halts = halts ?? APNsHalts(logger: logger)
        self.logger = logger
        policy = AnswerPolicy(retry: retry)
        self.pollInterval = pollInterval
        loop = WorkerLoop(executor: executor, logger: logger, failure: failure)
    }

    /// Rung when there is work for the sender: its next pass goes at once.
    var wakeSignal: WakeSignal { loop.wakeSignal }

    /// Whether ``stop(cutoff:)`` was called: a pass takes no more work.
    var isStopping: Bool { loop.isStopping }

    /// Runs `sender`'s passes until ``stop(cutoff:)`` (then gives back its claims) or until
    /// the task is cancelled, waking on ``wakeSignal`` or every poll interval. A cancellation
    /// stops a pass mid-query: its claims' leases run out and the next start takes them, so it
    /// is no failure to report.
    func run(_ sender: some SenderPass) async {
        await loop.run(
            pass: { try await sender.pass(now: BridgeClock.now()) }, wait: { pollInterval },
            stopped: { await giveBack(sender) })
    }

    /// Ends ``run(_:)`` after the pass in flight; answers that have not come by `cutoff` (nil:
    /// none is waited for) are given up, and their work given back for the next instance.
    func stop(cutoff at: Millis?) {
        loop.stop()
        cutoff.fire(at: at)
    }

    /// Gives back what `sender` still claims (unanswered at the cutoff, or claimed by a pass
    /// that failed), so that the next instance takes it at once instead of after its lease.
    private func giveBack(_ sender: some SenderPass) async {
        do {
            let released = try await sender.releaseClaims()
            if !released.isEmpty {
                logger.notice("gave back unanswered work for the next instance", metadata: released)
            }
        } catch {
            logger.error(
                "could not give back this instance's claims; they return when their lease ends",
                metadata: ["error": "\(error)"])
        }
    }

    /// Sends each push at once through the halts and its environment's client; what came of
    /// each, in order (`unanswered` for those the stop's cutoff came first for).
    func send(_ outgoing: [APNsHalts.Outgoing], now: Millis) async -> [APNsHalts.Passage] {
        await halts.send(outgoing, clients: clients, cutoff: cutoff, now: now)
    }

    /// What the answer policy does with `answer` on attempt `attempt` (the back-off jittered).
    func action(for answer: PushServiceAnswer, attempt: Int) -> AnswerAction {
        policy.action(for: answer, attempt: attempt, random: Double.random(in: 0..<1))
    }

    /// Halts `scope` after APNs refused its setup; when its next probe is due.
    func halt(_ scope: APNsScope, problem: ConfigurationProblem, now: Millis) -> Millis {
        halts.halt(scope, problem: problem, now: now)
    }

    /// What a push held in `scope` says: why sending there is halted.
    static func heldError(_ scope: APNsScope, problem: ConfigurationProblem?) -> String {
        "sending to \(scope) is halted"
            + (problem.map { ": APNs refused the setup (\($0))" } ?? " while a probe is out")
    }
}
