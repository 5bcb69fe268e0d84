import Foundation
import Liveline
import Logging

/// Turns stored events (webhooks and stream events) into pushes through the engine's rules, one
/// activity at a time, and writes each step durably before anything is sent.
///
/// A step, for each activity the store hands over (see ``DispatchStore/dispatchPass(limit:now:step:)``):
/// 1. **Resume** the activity's engine from its stored state, or start a new one at the first
///    step (its story is the registration's source, else its first event's).
/// 2. **Order.** Events come oldest order key first. One older than an event already applied
///    (same source) applies only the fields no newer applied event has set (last writer wins
///    per field, by order key) and is superseded whole when there are none: a late
///    `DASHER_CONFIRMED` shows the courier's name but never undoes `DASHER_PICKED_UP`
///    (`EventApplication`).
/// 3. **Apply** each event's mapped actions (start, trigger a beat with `input`, set fields,
///    end) with the engine's rules: coalescing, one push a second, the budget, relevance,
///    the end and its dismissal. An event the story cannot take (an unknown beat, a field of
///    the wrong type, an activity already ended) is superseded with the reason.
/// 4. **Deadlines.** The engine plays what is due by now (a coalesced push, a heartbeat, the
///    8-hour end) and says when it next needs to run; that time is stored, so another step
///    comes then even with no webhook, after a restart too.
/// 5. **Commit** events, engine state, next deadline and the decided pushes in the
///    transaction that claimed the activity; the outbox sender takes it from there, and for a
///    key with followers the fan-out sender too.
///
/// Scheduled beats of the scenario (`at`, `every`) do not play in the bridge: its beats happen
/// when webhooks say so.
///
/// **Concurrency.** Steps of different activities may run on several instances at once; the
/// pass's transaction holds its activities (and a replay's lease holds its one), so each
/// activity is on one instance at a time. Within an instance, ``run()`` is the only loop;
/// ``dispatch(now:)`` is for tests that step in virtual time.
public final class BridgeDispatcher: Sendable {
    /// How the dispatcher claims work: its instance name, leases, batch size and polling.
    public struct Configuration: Sendable {
        /// This instance's name in leases; unique per running bridge.
        public var instance: String
        /// How long a replay's lease holds its activity; a dead instance's is taken over after it.
        public var lease: Duration
        /// Activities claimed per pass.
        public var batch: Int
        /// How often to look for work nobody rang about (deadlines, other instances' webhooks).
        public var pollInterval: Duration

        /// A configuration for `instance`; the defaults suit one bridge on one store.
        public init(
            instance: String, lease: Duration = .seconds(30), batch: Int = 256,
            pollInterval: Duration = .milliseconds(100)
        ) {
            self.instance = instance
            self.lease = lease
            self.batch = max(1, batch)
            self.pollInterval = pollInterval
        }
    }

    /// What one pass did.
    public struct PassReport: Sendable, Hashable {
        /// Activities stepped.
        public var activities = 0
        /// Events applied.
        public var applied = 0
        /// Events kept but not applied (older than one applied, the activity ended…).
        public var superseded = 0
        /// Pushes queued in the outbox.
        public var pushes = 0
        /// Fan-outs started (pushes decided for keys with followers).
        public var fanOuts = 0
        /// The next deadlines of the activities written, for the loop to wake at.
        public var deadlines: [Millis] = []
    }

    /// What the dispatcher was made with.
    public let configuration: Configuration
    /// Each source's story, compiled once: what an activity plays.
    public let catalog: StoryCatalog
    private let application: EventApplication
    private let store: any DispatchStore
    private let observer: any DispatchObserver
    private let logger: Logger
    /// What this instance's recent steps did with each event, for `GET /v1/events/…`.
    public let journal = DispatchJournal()
    /// Rung when there is new work (a webhook stored, an activity registered).
    public var wakeSignal: WakeSignal { loop.wakeSignal }
    private let loop: WorkerLoop
    /// Rung when a step queued pushes.
    private let outboxSignal: WakeSignal?
    /// Rung when a step started fan-outs.
    private let fanOutSignal: WakeSignal?
    /// Rung when a step decided a renewal.
    private let renewalSignal: WakeSignal?

    /// A dispatcher over `store`, playing the stories of `catalog`.
    ///
    /// - Parameters:
    ///   - store: where events wait and where each step is committed.
    ///   - catalog: each source's story, compiled.
    ///   - configuration: the instance name, leases, batch size and polling.
    ///   - observer: told of each step, for metrics.
    ///   - logger: where failed passes and bad events are logged.
    ///   - outboxSignal: rung when a step queued pushes, so the outbox sender wakes at once.
    ///   - fanOutSignal: rung when a step started fan-outs, so the fan-out sender wakes at once.
    ///   - renewalSignal: rung when a step decided a renewal, so the renewal sender wakes at once.
    public init(
        store: any DispatchStore, catalog: StoryCatalog, configuration: Configuration,
        observer: any DispatchObserver = SilentDispatchObserver(),
        logger: Logger = Logger(label: "liveline.bridge.dispatch"), outboxSignal: WakeSignal? = nil,
        fanOutSignal: WakeSignal? = nil, renewalSignal: WakeSignal? = nil
    ) {
        self.fanOutSignal = fanOutSignal
        self.renewalSignal = renewalSignal
        self.store = store
        self.catalog = catalog
        application = EventApplication(catalog: catalog)
        self.configuration = configuration
        self.observer = observer
        self.logger = logger
        self.outboxSignal = outboxSignal
        loop = WorkerLoop(executor: store.taskExecutor, logger: logger, failure: "dispatch failed; retrying")
    }

    /// Dispatches until ``stop()`` or until the task is cancelled, waking on ``wakeSignal``, at
    /// the next deadline this instance wrote (a held push's second), or every poll interval. A
    /// store error is logged and retried at the next poll: nothing acknowledged is dropped.
    public func run() async {
        var deadlines = DeadlineQueue()
        // A cancellation stops a pass mid-transaction, which rolls back: nothing of it is
        // written, and the next start applies its events.
        await loop.run(
            pass: {
                let began = BridgeClock.now()
                let report = try await dispatch(now: began)
                deadlines.removeAll(through: began)
                for deadline in report.deadlines { deadlines.insert(deadline, now: began) }
                // A full batch means more may be waiting: go again at once.
                return report.activities >= configuration.batch
            },
            wait: { deadlines.wait(now: BridgeClock.now(), poll: configuration.pollInterval) })
    }

    /// Ends ``run()`` once the pass in flight is committed (a drain): what it decided is in the
    /// outbox for the sender, and what no pass took up waits in the store for the next instance.
    public func stop() {
        loop.stop()
    }

    /// One pass at `now`: claims activities with work, runs one step for each and writes them,
    /// all in one transaction (one fsync, however many activities).
    @discardableResult
    public func dispatch(now: Millis) async throws -> PassReport {
        let commits = try await store.dispatchPass(limit: configuration.batch, now: now) { self.step($0, now: now) }
        if !commits.isEmpty { await journal.remember(commits) }
        var report = PassReport()
        for commit in commits {
            report.activities += 1
            report.applied += commit.applied.count
            report.superseded += commit.superseded.count
            report.pushes += commit.pushes.count
            report.fanOuts += commit.fanOuts.count
            if let deadline = commit.nextDeadline { report.deadlines.append(deadline) }
        }
        if report.pushes > 0 || report.fanOuts > 0 { outboxSignal?.ring() }
        if report.fanOuts > 0 { fanOutSignal?.ring() }
        if commits.contains(where: { !$0.renewals.isEmpty }) { renewalSignal?.ring() }
        return report
    }

    /// Replays a dead letter: sends the activity's *current* state again with a fresh
    /// timestamp (or its end again, if it has ended), never the stored payload, and removes
    /// the dead letter in the same transaction.
    public func replay(_ deadLetter: DeadLetter, now: Millis) async throws -> ReplayOutcome {
        guard
            let work = try await store.claimActivity(
                deadLetter.push.activityKey, instance: configuration.instance, lease: configuration.lease, now: now
            )
        else {
            return .activityUnavailable
        }
        var commit = step(ActivityWork(activity: work.activity, events: []), now: now, resend: true)
        guard !commit.pushes.isEmpty || commit.error == nil else {
            _ = try await store.commitDispatch(
                DispatchCommit(
                    activityKey: commit.activityKey, lifecycle: commit.lifecycle, engineState: commit.engineState,
                    nextDeadline: commit.nextDeadline, now: now
                ), instance: configuration.instance)
            return .nothingToSend(commit.error ?? "")
        }
        commit.replacedDeadLetters = [deadLetter.id]
        guard try await store.commitDispatch(commit, instance: configuration.instance) else {
            return .activityUnavailable
        }
        outboxSignal?.ring()
        return .queued(pushes: commit.pushes.count)
    }

    /// What ``replay(_:now:)`` did with a dead letter.
    public enum ReplayOutcome: Sendable, Hashable {
        /// A fresh push of the activity's current state was queued (`pushes` of them).
        case queued(pushes: Int)
        /// Not registered any more, or another instance is working on it: try again later.
        case activityUnavailable
        /// The activity has nothing a device shows (it never started), or its state is unreadable.
        case nothingToSend(String)
    }

    // MARK: One step

    /// Runs one activity's step at `now` and returns what to commit. Pure apart from logging:
    /// the engine works on a copy restored from the stored activity.
    func step(_ work: ActivityWork, now: Millis, resend: Bool = false) -> DispatchCommit {
        let activity = work.activity
        let second = BridgeClock.wholeSecond(now)
        var applied: [Int64] = []
        var ignored: [Int64] = []
        var superseded: [(sequence: Int64, reason: String)] = []
        var errors: [String] = []

        // 1. Resume or begin.
        var restored: BridgeActivityState?
        if let bytes = activity.engineState {
            do {
                restored = try BridgeActivityState.decode(bytes)
            } catch {
                errors.append(
                    "the stored engine state could not be read (\(error)); the story starts again from its first state")
            }
        }
        let sourceName =
            restored?.source
            ?? (catalog[activity.source] != nil ? activity.source : nil)
            ?? work.events.first(where: { catalog[$0.event.source] != nil })?.event.source
            ?? catalog.sourceNames.first
        guard let sourceName, let story = catalog[sourceName] else {
            let reason = "no configured source has a story for this activity (registered with '\(activity.source)')"
            return DispatchCommit(
                activityKey: activity.activityKey, superseded: work.events.map { ($0.sequence, reason) },
                lifecycle: activity.lifecycle,
                engineState: activity.engineState ?? [], nextDeadline: nil, error: reason, now: now
            )
        }
        var engine: ActivityEngine
        var state: BridgeActivityState
        if let restored, let resumed = try? ActivityEngine(program: story.program, snapshot: restored.engine) {
            engine = resumed
            state = restored
        } else {
            if restored != nil {
                errors.append(
                    "the stored engine state does not fit '\(story.program.name)' any more; the story starts again")
            }
            let payloadLimit =
                activity.updateToken == nil && activity.channelID != nil
                ? PayloadLimits.broadcast : PayloadLimits.device
            engine = ActivityEngine(
                program: story.program, id: 0, scenarioStart: second - story.program.offset,
                payloadLimit: payloadLimit,
                followsTimeline: false
            )
            state = BridgeActivityState(source: sourceName, engine: engine.snapshot)
        }
        // The key's own renew, over its scenario's; not in the snapshot, so it follows the registration.
        engine.renewal = RenewalChoice.renewal(
            activity.renewal, program: story.program, defaultTitle: story.source.scenario.name)
        let t = max(second, engine.lastPushTime ?? .min)
        let earliestReceipt = work.events.map(\.event.receivedAt).min()
        var sink = OutboxCollector(
            activityKey: activity.activityKey, topic: story.topic, receivedAt: earliestReceipt, activity: engine.id,
            android: state.android)
        var writer = JSONWriter()

        // 2 and 3. Events, in order, after what was due before them; everything they change at
        // this instant goes in one push.
        engine.advance(to: t, writer: &writer, sink: &sink)
        for stored in work.events {
            switch application.apply(stored.event, to: &engine, state: &state, at: t, writer: &writer, sink: &sink) {
            case .applied:
                applied.append(stored.sequence)
                observer.eventDispatched(source: stored.event.source, outcome: "applied")
            case .ignored:
                applied.append(stored.sequence)
                ignored.append(stored.sequence)
                observer.eventDispatched(source: stored.event.source, outcome: "ignored")
            case .superseded(let reason):
                superseded.append((stored.sequence, reason))
                observer.eventDispatched(source: stored.event.source, outcome: "superseded")
            }
        }

        // 4. Deadlines, and a replay's resend.
        engine.advance(to: t, writer: &writer, sink: &sink)
        if resend, !engine.resend(at: t, writer: &writer, sink: &sink) {
            errors.append("the activity has not started: there is nothing on a device to send again")
        }
        errors += sink.problems
        state.engine = engine.snapshot
        if story.program.spec.android != nil { state.android = sink.androidMemory }
        let encoded = state.encoded()
        let wake = engine.nextWake
        var commit = DispatchCommit(
            activityKey: activity.activityKey, applied: applied, superseded: superseded, lifecycle: engine.lifecycle,
            engineState: encoded, nextDeadline: wake == .max ? nil : wake,
            pushes: sink.pushes, error: errors.isEmpty ? nil : errors.joined(separator: "; "), now: now
        )
        commit.pushReasons = sink.reasons
        commit.ignored = ignored
        commit.renewals = sink.renewals
        if work.hasFollowers {
            // Every push fans out to the followers; the key's own token or channel takes those it
            // can (a start needs its push-to-start token), so none waits in the outbox for a
            // target the key will never have.
            commit.fanOuts = sink.pushes
            commit.fanOutReasons = sink.reasons
            let own = zip(sink.pushes, sink.reasons).filter { push, _ in
                activity.fcmToken != nil
                    ? push.android != nil
                    : push.kind == .start
                        ? activity.pushToStartToken != nil : (activity.updateToken != nil || activity.channelID != nil)
            }
            commit.pushes = own.map(\.0)
            commit.pushReasons = own.map(\.1)
        } else if activity.fcmToken != nil {
            // An Android phone is sent the story's android: Live Update; a story without one has
            // nothing for it (its registration's answer says so), so nothing waits in the outbox.
            let own = zip(sink.pushes, sink.reasons).filter { push, _ in push.android != nil }
            commit.pushes = own.map(\.0)
            commit.pushReasons = own.map(\.1)
        }
        return commit
    }

    // MARK: Reading state

    /// The content-state the activity shows now, as the JSON the app decodes; nil before the
    /// first step.
    public func contentState(of activity: RegisteredActivity) -> [UInt8]? {
        guard let bytes = activity.engineState, let state = try? BridgeActivityState.decode(bytes),
            let story = catalog[state.source],
            let engine = try? ActivityEngine(program: story.program, snapshot: state.engine)
        else { return nil }
        var writer = JSONWriter()
        writer.object(engine.state)
        return writer.bytes
    }
}
