import Liveline
import LivelineAPNs
import NIOConcurrencyHelpers

/// Accounts for every push handed to the target and measures its latency.
///
/// The runner calls ``released(_:intendedMicros:)`` just before it submits a push; the delivery
/// calls ``record(_:)`` with each ``DeliveryEvent``. Each released push is remembered (by
/// activity and sequence) until an event settles it, delivered, superseded, rejected or given
/// up, so at the end whatever is left is exactly the pushes that were dropped when their
/// activity was stopped, or lost.
///
/// Latency is taken here, in microseconds, from the intended time remembered at release (the
/// push's due time on the real clock; the release instant on the virtual clock) to the moment
/// the answer is recorded: a push sent late carries its lateness, so there is no coordinated
/// omission. (``DeliveryEvent/delivered`` carries a latency too, but in whole milliseconds.)
///
/// **Concurrency.** Events arrive on NIO event-loop threads, tens of thousands a second, and
/// releases come from the runner's task. The state sits behind one lock, held for a dictionary
/// update and a histogram increment, never across a callback: an actor would cost a task hop per
/// answer on this path.
public final class DeliveryMeasurements: Sendable {
    struct State {
        var counts = LoadResult.DeliveryCounts()
        /// `activity << 24 | sequence` → intended time, microseconds, for pushes not yet settled.
        var open: [Int: Int64] = [:]
        var latency = LatencySamples()
        var sent = TimeSeries()
        var completed = TimeSeries()
        var errors = TimeSeries()
        var stoppedActivities: [Int: String] = [:]
        /// Broadcast mode: pushes accepted per channel (run id).
        var acceptedByActivity: [Int: Int] = [:]
    }

    private let box = NIOLockedValueBox(State())
    /// When the run started, microseconds: interval 0 begins here.
    public let startMicros: Int64
    public let intervalMicros: Int64
    private let countAccepted: Bool
    private let onSettled: @Sendable (Int?) -> Void

    /// - Parameters:
    ///   - countAcceptedPerActivity: keep per-activity counts of accepted pushes (broadcast mode).
    ///   - onSettled: called after each event that may have lowered the number in flight, with
    ///     the activity whose in-flight push settled (or that was stopped), nil for others.
    public init(
        startMicros: Int64, intervalMillis: Int64 = 1000, countAcceptedPerActivity: Bool = false,
        onSettled: @escaping @Sendable (Int?) -> Void = { _ in }
    ) {
        self.startMicros = startMicros
        self.intervalMicros = intervalMillis * 1000
        self.countAccepted = countAcceptedPerActivity
        self.onSettled = onSettled
    }

    private static func key(_ push: Push) -> Int { push.activity << 24 | (push.sequence & 0xFF_FFFF) }

    private func interval(_ micros: Int64) -> Int { Int(max(0, micros - startMicros) / intervalMicros) }

    /// A push is about to be submitted; its latency will count from `intendedMicros`.
    public func released(_ push: Push, intendedMicros: Int64, now: Int64) {
        let index = interval(now)
        box.withLockedValue { state in
            state.counts.submitted += 1
            state.open[Self.key(push)] = intendedMicros
            state.sent.add(at: index)
        }
    }

    /// Records one delivery event.
    public func record(_ event: DeliveryEvent) {
        // Submissions are counted by submitted(_:at:); the hot path takes no lock for a send.
        if case .sent = event { return }
        let now = MicroClock.now()
        let index = interval(now)
        box.withLockedValue { state in
            switch event {
            case .delivered(let activity, let push, let response, _, _):
                state.counts.delivered += 1
                state.counts.statuses[String(response.status), default: 0] += 1
                state.completed.add(at: index)
                if let intended = state.open.removeValue(forKey: Self.key(push)) {
                    state.latency.record(now - intended, interval: index)
                } else {
                    // Released under another sequence (a merge): measure from its own due time.
                    state.latency.record(now - push.time * 1000, interval: index)
                }
                if countAccepted { state.acceptedByActivity[activity, default: 0] += 1 }
            case .superseded(_, let dropped, _):
                state.counts.superseded += 1
                state.open.removeValue(forKey: Self.key(dropped))
            case .rejected(_, let push, let response):
                state.counts.rejected += 1
                state.counts.statuses[String(response.status), default: 0] += 1
                state.counts.reasons[response.reason?.rawValue ?? "status \(response.status)", default: 0] += 1
                state.completed.add(at: index)
                state.errors.add(at: index)
                state.open.removeValue(forKey: Self.key(push))
            case .retrying(_, _, let failure, _, _):
                state.counts.retries += 1
                state.counts.retryFailures[Self.shortFailure(failure), default: 0] += 1
            case .gaveUp(_, let push, let failure):
                state.counts.gaveUp += 1
                state.counts.reasons["gave up: " + Self.shortFailure(failure), default: 0] += 1
                state.errors.add(at: index)
                state.open.removeValue(forKey: Self.key(push))
            case .stopped(let activity, let reason):
                state.stoppedActivities[activity] = reason
                state.errors.add(at: index)
            case .configurationError(let advice):
                if state.counts.configurationError == nil { state.counts.configurationError = advice }
            case .sent, .abandoned:
                // An abandoned push stays open, so finish() counts it as lost.
                break
            }
        }
        switch event {
        case .retrying, .sent: break
        case .delivered(let activity, _, _, _, _), .rejected(let activity, _, _), .gaveUp(let activity, _, _),
            .stopped(let activity, _),
            .abandoned(let activity, _, _):
            onSettled(activity)
        case .superseded, .configurationError:
            onSettled(nil)
        }
    }

    /// Failures as short labels for counting: `503 ServiceUnavailable`, `connection closed`.
    static func shortFailure(_ failure: String) -> String {
        String(failure.prefix(80))
    }

    /// The final accounting: pushes still open are dropped (their activity was stopped) or lost.
    public func finish() -> (
        counts: LoadResult.DeliveryCounts, latency: LatencySamples, sent: [Int], completed: [Int], errors: [Int],
        stopped: [Int: String], acceptedByActivity: [Int: Int]
    ) {
        box.withLockedValue { state in
            for key in state.open.keys {
                if state.stoppedActivities[key >> 24] != nil {
                    state.counts.droppedAfterStop += 1
                } else {
                    state.counts.lost += 1
                }
            }
            state.open.removeAll()
            state.latency.finish()
            var sent = state.sent, completed = state.completed, errors = state.errors
            let length = max(sent.values.count, completed.values.count, errors.values.count, state.latency.p50.count)
            sent.pad(to: length)
            completed.pad(to: length)
            errors.pad(to: length)
            return (
                state.counts, state.latency, sent.values, completed.values, errors.values, state.stoppedActivities,
                state.acceptedByActivity
            )
        }
    }

    /// Live numbers for the progress line.
    public func snapshot() -> (submitted: Int, completed: Int, errors: Int, open: Int) {
        box.withLockedValue { state in
            (
                state.counts.submitted, state.counts.delivered + state.counts.rejected,
                state.counts.errors + state.stoppedActivities.count, state.open.count
            )
        }
    }
}
