import Histogram
import Liveline
import LivelineAPNs
import LivelineFCM
import NIOConcurrencyHelpers

/// Accounts for every push (and, with Android in the run, every FCM message) handed to the
/// target and measures its latency.
///
/// The runner calls ``released(activity:sequence:intendedMicros:now:)`` just before it submits a
/// push or message; the APNs delivery calls ``record(_:)`` with each ``DeliveryEvent``, the
/// Android delivery ``recordAndroid(_:outcome:)`` and ``supersededAndroid(_:)``. Each released
/// one is remembered (by activity and sequence) until an answer settles it, delivered,
/// superseded, rejected or given up, so at the end whatever is left is exactly what was dropped
/// when its activity was stopped, or lost.
///
/// Latency is taken here, in microseconds, from the intended time remembered at release (the
/// due time on the real clock; the release instant on the virtual clock) to the moment the
/// answer is recorded: a push sent late carries its lateness, so there is no coordinated
/// omission. (``DeliveryEvent/delivered`` carries a latency too, but in whole milliseconds.)
///
/// With Android in the run, the counts and a latency histogram are kept per platform as well;
/// the totals are their sums. An iOS-only run keeps one account, as before.
///
/// **Concurrency.** Answers arrive on NIO event-loop threads (and the Android delivery's tasks),
/// tens of thousands a second, and releases come from the runner's task. The state sits behind
/// one lock, held for a dictionary update and a histogram increment, never across a callback: an
/// actor would cost a task hop per answer on this path.
public final class DeliveryMeasurements: Sendable {
    struct State {
        /// Per platform: iOS's alone, or iOS's and Android's.
        var accounts: [LoadResult.DeliveryCounts]
        /// Per platform, answers by HTTP status: kept as numbers on the answer path, and written
        /// into ``accounts`` (as the report's strings) by ``finish()``.
        var statuses: [[Int: Int]]
        /// Per platform, with Android in the run; the total is ``latency``'s.
        var platformLatency: [Histogram<UInt64>]
        /// `activity << 24 | sequence` → intended time, microseconds, for what is not yet settled.
        var open: [Int: Int64] = [:]
        var latency = LatencySamples()
        var sent = TimeSeries()
        var completed = TimeSeries()
        var errors = TimeSeries()
        var stoppedActivities: [Int: String] = [:]
        /// Broadcast mode: pushes accepted per channel (run id).
        var acceptedByActivity: [Int: Int] = [:]
    }

    /// What ``finish()`` returns: the run's accounting.
    public struct Final: Sendable {
        /// Every push and message, both platforms.
        public var counts: LoadResult.DeliveryCounts
        /// Latency over the run and per interval, both platforms.
        public var latency: LatencySamples
        /// Released per interval.
        public var sent: [Int]
        /// Final answers per interval.
        public var completed: [Int]
        /// Errors per interval.
        public var errors: [Int]
        /// Activities the target stopped, with why.
        public var stopped: [Int: String]
        /// Broadcast mode: pushes accepted per channel (run id).
        public var acceptedByActivity: [Int: Int]
        /// With Android in the run: each platform's counts and latency (iOS first).
        public var platforms: [(counts: LoadResult.DeliveryCounts, latency: Histogram<UInt64>)]
    }

    private let box: NIOLockedValueBox<State>
    /// When the run started, microseconds: interval 0 begins here.
    public let startMicros: Int64
    public let intervalMicros: Int64
    private let countAccepted: Bool
    /// With Android in the run: whether each activity (by run id) plays on Android.
    private let android: [Bool]?
    private let onSettled: @Sendable (Int?) -> Void

    /// - Parameters:
    ///   - countAcceptedPerActivity: keep per-activity counts of accepted pushes (broadcast mode).
    ///   - androidActivities: with Android in the run, whether each activity (by run id) plays
    ///     on Android; the counts are then kept per platform too.
    ///   - onSettled: called after each event that may have lowered the number in flight, with
    ///     the activity whose in-flight push settled (or that was stopped), nil for others.
    public init(
        startMicros: Int64, intervalMillis: Int64 = 1000, countAcceptedPerActivity: Bool = false,
        androidActivities: [Bool]? = nil, onSettled: @escaping @Sendable (Int?) -> Void = { _ in }
    ) {
        self.startMicros = startMicros
        self.intervalMicros = intervalMillis * 1000
        self.countAccepted = countAcceptedPerActivity
        self.android = androidActivities
        self.onSettled = onSettled
        let platforms = androidActivities == nil ? 1 : 2
        box = NIOLockedValueBox(
            State(
                accounts: Array(repeating: LoadResult.DeliveryCounts(), count: platforms),
                statuses: Array(repeating: [:], count: platforms),
                platformLatency: androidActivities == nil
                    ? [] : Array(repeating: EncodedHistogram.emptyLatencyHistogram(), count: platforms)))
    }

    private static func key(activity: Int, sequence: Int) -> Int { activity << 24 | (sequence & 0xFF_FFFF) }
    private static func key(_ push: Push) -> Int { key(activity: push.activity, sequence: push.sequence) }

    private func interval(_ micros: Int64) -> Int { Int(max(0, micros - startMicros) / intervalMicros) }

    /// The account of `activity`'s platform: 0 (iOS, or everything), 1 (Android).
    private func account(_ activity: Int) -> Int {
        guard let android, android.indices.contains(activity), android[activity] else { return 0 }
        return 1
    }

    /// A push is about to be submitted; its latency will count from `intendedMicros`.
    public func released(_ push: Push, intendedMicros: Int64, now: Int64) {
        released(activity: push.activity, sequence: push.sequence, intendedMicros: intendedMicros, now: now)
    }

    /// A push or message of `activity` (its `sequence` there) is about to be submitted; its
    /// latency will count from `intendedMicros`.
    public func released(activity: Int, sequence: Int, intendedMicros: Int64, now: Int64) {
        let index = interval(now)
        let account = account(activity)
        box.withLockedValue { state in
            state.accounts[account].submitted += 1
            state.open[Self.key(activity: activity, sequence: sequence)] = intendedMicros
            state.sent.add(at: index)
        }
    }

    /// Records one APNs delivery event.
    public func record(_ event: DeliveryEvent) {
        // Submissions are counted by released(_:intendedMicros:now:); a send takes no lock.
        if case .sent = event { return }
        let now = MicroClock.now()
        let index = interval(now)
        box.withLockedValue { state in
            switch event {
            case .delivered(let activity, let push, let response, _, _):
                Self.delivered(
                    key: Self.key(push), status: response.status, fallback: push.time * 1000,
                    account: account(activity),
                    now: now, index: index, state: &state)
                if countAccepted { state.acceptedByActivity[activity, default: 0] += 1 }
            case .superseded(let activity, let dropped, _):
                state.accounts[account(activity)].superseded += 1
                state.open.removeValue(forKey: Self.key(dropped))
            case .rejected(let activity, let push, let response):
                Self.rejected(
                    key: Self.key(push), status: response.status,
                    reason: response.reason?.rawValue ?? "status \(response.status)", account: account(activity),
                    index: index, state: &state)
            case .retrying(let activity, _, let failure, _, _):
                let account = account(activity)
                state.accounts[account].retries += 1
                state.accounts[account].retryFailures[Self.shortFailure(failure), default: 0] += 1
            case .gaveUp(let activity, let push, let failure):
                Self.gaveUp(
                    key: Self.key(push), failure: failure, account: account(activity), index: index, state: &state)
            case .stopped(let activity, let reason):
                state.stoppedActivities[activity] = reason
                state.errors.add(at: index)
            case .configurationError(let advice):
                if state.accounts[0].configurationError == nil { state.accounts[0].configurationError = advice }
            case .notRenewed(let activity, let push, _):
                state.accounts[account(activity)].notRenewed += 1
                state.open.removeValue(forKey: Self.key(push))
            case .sent, .abandoned:
                // An abandoned push stays open, so finish() counts it as lost.
                break
            }
        }
        switch event {
        case .retrying, .sent: break
        case .delivered(let activity, _, _, _, _), .rejected(let activity, _, _), .gaveUp(let activity, _, _),
            .stopped(let activity, _),
            .abandoned(let activity, _, _), .notRenewed(let activity, _, _):
            onSettled(activity)
        case .superseded, .configurationError:
            onSettled(nil)
        }
    }

    /// Records what became of an Android message after ``FCMClient`` tried it: delivered,
    /// rejected, given up, its app instance gone (the activity stops; the message counts as
    /// dropped) or the setup refused (the run ends). Its retries are counted.
    public func recordAndroid(_ message: AndroidMessage, outcome: FCMSendOutcome) {
        let now = MicroClock.now()
        let index = interval(now)
        let activity = message.activity
        let key = Self.key(activity: activity, sequence: message.sequence)
        let account = account(activity)
        box.withLockedValue { state in
            if outcome.attempts > 1 {
                state.accounts[account].retries += outcome.attempts - 1
                state.accounts[account].retryFailures["FCM: " + Self.shortFailure(outcome.cause), default: 0] +=
                    outcome.attempts - 1
            }
            switch outcome.action {
            case .deliver:
                Self.delivered(
                    key: key, status: 200, fallback: message.time * 1000, account: account, now: now, index: index,
                    state: &state)
            case .reject(let reason):
                Self.rejected(
                    key: key, status: outcome.status, reason: reason, account: account, index: index, state: &state)
            case .giveUp, .retry, .renewTokenAndRetry:
                Self.gaveUp(key: key, failure: outcome.cause, account: account, index: index, state: &state)
            case .forgetToken(let problem):
                state.stoppedActivities[activity] = "FCM: \(problem)"
                state.errors.add(at: index)
            case .stop(let problem):
                if state.accounts[account].configurationError == nil {
                    state.accounts[account].configurationError = problem.description
                }
            }
        }
        onSettled(activity)
    }

    /// An Android message that waited was replaced by a newer one of its activity.
    public func supersededAndroid(_ message: AndroidMessage) {
        let account = account(message.activity)
        box.withLockedValue { state in
            state.accounts[account].superseded += 1
            state.open.removeValue(forKey: Self.key(activity: message.activity, sequence: message.sequence))
        }
        onSettled(nil)
    }

    private static func delivered(
        key: Int, status: Int, fallback: Int64, account: Int, now: Int64, index: Int, state: inout State
    ) {
        state.accounts[account].delivered += 1
        state.statuses[account][status, default: 0] += 1
        state.completed.add(at: index)
        // Released under another sequence (a merge): measured from its own due time.
        let latency = now - (state.open.removeValue(forKey: key) ?? fallback)
        state.latency.record(latency, interval: index)
        if !state.platformLatency.isEmpty { state.platformLatency[account].record(UInt64(max(0, latency))) }
    }

    private static func rejected(
        key: Int, status: Int, reason: String, account: Int, index: Int, state: inout State
    ) {
        state.accounts[account].rejected += 1
        state.statuses[account][status, default: 0] += 1
        state.accounts[account].reasons[reason, default: 0] += 1
        state.completed.add(at: index)
        state.errors.add(at: index)
        state.open.removeValue(forKey: key)
    }

    private static func gaveUp(key: Int, failure: String, account: Int, index: Int, state: inout State) {
        state.accounts[account].gaveUp += 1
        state.accounts[account].reasons["gave up: " + shortFailure(failure), default: 0] += 1
        state.errors.add(at: index)
        state.open.removeValue(forKey: key)
    }

    /// Failures as short labels for counting: `503 ServiceUnavailable`, `connection closed`.
    static func shortFailure(_ failure: String) -> String {
        String(failure.prefix(80))
    }

    /// The final accounting: what is still open is dropped (its activity was stopped) or lost.
    public func finish() -> Final {
        box.withLockedValue { state in
            for key in state.open.keys {
                let activity = key >> 24
                if state.stoppedActivities[activity] != nil {
                    state.accounts[account(activity)].droppedAfterStop += 1
                } else {
                    state.accounts[account(activity)].lost += 1
                }
            }
            state.open.removeAll()
            for (account, statuses) in state.statuses.enumerated() {
                for (status, count) in statuses {
                    state.accounts[account].statuses[String(status), default: 0] += count
                }
            }
            state.statuses = state.statuses.map { _ in [:] }
            state.latency.finish()
            var sent = state.sent, completed = state.completed, errors = state.errors
            let length = max(sent.values.count, completed.values.count, errors.values.count, state.latency.p50.count)
            sent.pad(to: length)
            completed.pad(to: length)
            errors.pad(to: length)
            var total = LoadResult.DeliveryCounts()
            for account in state.accounts { total.add(account) }
            return Final(
                counts: total, latency: state.latency, sent: sent.values, completed: completed.values,
                errors: errors.values, stopped: state.stoppedActivities, acceptedByActivity: state.acceptedByActivity,
                platforms: state.platformLatency.isEmpty
                    ? [] : Array(zip(state.accounts, state.platformLatency)).map { ($0.0, $0.1) })
        }
    }

    /// Live numbers for the progress line: the totals, and each platform's with Android in the run.
    public func snapshot() -> (
        submitted: Int, completed: Int, errors: Int, open: Int, platforms: [(completed: Int, errors: Int)]
    ) {
        box.withLockedValue { state in
            var total = LoadResult.DeliveryCounts()
            for account in state.accounts { total.add(account) }
            var stopped = [0, 0]
            if state.accounts.count > 1 {
                for activity in state.stoppedActivities.keys { stopped[account(activity)] += 1 }
            }
            let platforms =
                state.accounts.count > 1
                ? state.accounts.enumerated().map { ($1.delivered + $1.rejected, $1.errors + stopped[$0]) } : []
            return (
                total.submitted, total.delivered + total.rejected, total.errors + state.stoppedActivities.count,
                state.open.count, platforms
            )
        }
    }
}
