/// One activity being played: its state, its budget, and the rules that turn beats into pushes.
///
/// The engine is pure. It has no clock, no I/O and no globals: it is told "it is now T" (and,
/// for the bridge, "this beat happened") and it hands the pushes due by then to a ``PushSink``,
/// returning when it next needs to be woken. A scheduler drives many engines from one heap of
/// those wake times (see ``ScenarioRun``); tests drive them in virtual time.
///
/// The rules, in the order they apply:
/// - **Coalescing.** A low-priority beat within `min-interval` of the last push waits; beats that
///   come meanwhile merge into it, newest state winning. High-priority beats, starts and ends go
///   at once, carrying anything that was waiting.
/// - **One push a second.** `aps.timestamp` is whole seconds and strictly increases, so a push
///   due in the same second as the last one waits for the next second, merging what comes.
/// - **Budget.** A high beat spends a priority-10 token from a ``BudgetBucket``. With none left it
///   is sent at priority 5 (`downgrade`), or held until a token is back (`defer`) unless that
///   would let the activity go stale.
/// - **Stale date and heartbeats.** Every push carries `stale-date` = timestamp + stale-after.
///   When nothing has been sent by `heartbeat` before it, a priority-5 heartbeat with the same
///   state pushes it forward.
/// - **Relevance.** Once set, every push carries the current `relevance-score`.
/// - **End.** The end carries the final state and the policy's `dismissal-date`; nothing follows
///   it. Once an end is decided, no beat or external change applies, even while it waits for the
///   next second. An activity that reaches max-duration is ended by the engine.
/// - **Renewal.** With ``renewal`` set, `before` into each activity the engine starts a successor
///   and ends the predecessor, both with the current state (see `ActivityEngine+Renewal.swift`),
///   until the story ends or reaches its `until`.
/// - **Size.** A payload over the limit is rejected (``PushSink/reject(_:problem:from:)``), never sent.
/// - **Unchanged beats.** A beat that changes nothing (no field, relevance, alert, start or end)
///   sends nothing: Apple asks for updates only when content changes.
public struct ActivityEngine: Sendable {
    /// Where an activity is in its life.
    public enum Lifecycle: String, Sendable, Hashable {
        /// Not started: before its start time, or waiting for its start push.
        case pending
        /// Started: beats play and pushes go out.
        case active
        /// Ended: nothing more is sent.
        case ended
    }

    /// What ``trigger(_:input:at:writer:sink:advancing:)`` did with a beat.
    public enum TriggerOutcome: Sendable, Hashable {
        /// The beat changed the activity; a push will carry it.
        case applied
        /// The beat changed nothing, so nothing will be sent.
        case unchanged
        /// The activity's program has no beat of that id.
        case unknownBeat
        /// The activity has not started yet; the beat was ignored.
        case notStarted
        /// The activity has ended; the beat was ignored.
        case ended
    }

    /// A push being gathered: the beats merged so far and when it goes. Kept in place with an
    /// `active` flag rather than as an optional, so merging a beat mutates it without copies.
    struct Pending: Sendable, Hashable {
        var active = false
        var kind: PushReason.Kind = .beat
        var merged = 0
        var beat: Int32 = -1
        var n: Int32 = 0
        var firstAt: Millis
        /// When the newest beat was merged.
        var lastAt: Millis
        var flushAt: Millis
        var high = false
        var deferredSince: Millis?
        var alert: Alert<String>?
        var start: StartSpec?
        var end = false
        var dismissal: Dismissal?
        /// Names the newest external change merged (``ExternalChange/label``), when `beat` is -1.
        var externalLabel: String?
    }

    /// The compiled story the engine plays, shared by every copy of the activity.
    public let program: ActivityProgram
    /// The activity's place in its run.
    public let id: Int
    /// The copy number in a load test (the `index` template), from 0.
    public let copy: Int
    /// This copy's seed: jitter, `chance`, `random` and `pick` draw from it, so a run replays exactly.
    public let seed: UInt64
    /// When the activity starts, in UNIX milliseconds.
    public let startTime: Millis
    /// The largest payload it may send: 4096 to a device, 5120 to a channel.
    public let payloadLimit: Int

    /// Whether the activity is pending, active or ended.
    public internal(set) var lifecycle: Lifecycle = .pending
    /// The content-state as the engine has it: everything applied, sent or waiting.
    public internal(set) var state: StateObject
    /// The `relevance-score` every push carries from now on, or nil for none.
    public internal(set) var relevance: Double?
    /// Pushes sent so far.
    public internal(set) var pushCount = 0
    /// Beats that happened (applied, or skipped by `chance`).
    public internal(set) var beatCount = 0
    /// When the last push went, or nil before the first.
    public var lastPushTime: Millis? { lastPush == .min ? nil : lastPush }
    /// When the activity would go stale without another push, or nil.
    public var staleTime: Millis? { staleDeadline == .max ? nil : staleDeadline }
    /// The priority-10 budget.
    public internal(set) var bucket: BudgetBucket

    var staleAfter: Millis?
    var cursor = 0
    var nextOccurrence: Millis = .max
    var lastOccurrence: Millis
    var lastTimestamp: Int64 = .min
    var lastPush: Millis = .min
    var staleDeadline: Millis = .max
    var activeSince: Millis = .max
    var pending = Pending(firstAt: 0, lastAt: 0, flushAt: .max)

    /// Whether scheduled beats (`at`, `every`) play. The bridge turns it off: its beats happen
    /// when webhooks trigger them, while the policy's rules (heartbeats, the cap) still apply.
    public let followsTimeline: Bool

    /// Whether and when the story renews its activity before the system's limit: the program's
    /// policy's, unless set otherwise (a bridge key's own `renew`). Not part of the snapshot.
    public var renewal: Renewal?
    /// Renewals so far: pushes now go to the story's `renewals`-th successor (0: the first activity).
    public internal(set) var renewals = 0
    /// When the story's first activity started, once it has been renewed.
    var storySince: Millis = .max
    /// The start (``activeSince``) of the activity whose renewal could not be made (its start push
    /// too large): that activity is not renewed again, and ends at the system's limit.
    var renewalRefusedFor: Millis = .max

    /// An engine for one copy of `program`, in a run that starts at `scenarioStart`.
    public init(
        program: ActivityProgram, id: Int, copy: Int = 0, scenarioStart: Millis,
        payloadLimit: Int = PayloadLimits.device,
        followsTimeline: Bool = true
    ) {
        self.program = program
        self.id = id
        self.copy = copy
        self.seed = SeededRandom.activitySeed(scenario: program.scenarioSeed, activity: program.index, copy: copy)
        let start = scenarioStart + program.offset
        self.startTime = start
        self.payloadLimit = payloadLimit
        self.followsTimeline = followsTimeline
        self.lastOccurrence = start
        self.relevance = program.spec.relevance
        self.staleAfter = program.policy.staleAfter
        self.bucket = BudgetBucket(perHour: program.policy.budget, now: start)
        self.renewal = program.policy.renewal
        self.state = StateObject()
        self.state = initialState()
        if followsTimeline {
            nextOccurrence = occurrenceTime(at: 0)
        } else {
            cursor = program.occurrences.count
        }
    }

    /// The first content-state, as the activity starts with it. Evaluated again on each call,
    /// so engines don't each keep a copy.
    public func initialState() -> StateObject {
        evaluateStatic(program.spec.contentState, salt: 0x1a17)
    }

    /// The static attributes, evaluated at the activity start.
    public func attributes() -> StateObject {
        evaluateStatic(program.spec.attributes, salt: 0xa77)
    }

    private func evaluateStatic(_ template: ValueTemplate, salt: UInt64) -> StateObject {
        let context = EvaluationContext(
            n: 0, elapsed: 0, activity: program.name, index: copy, seed: SeededRandom.hash(seed, salt),
            state: StateObject(), input: nil
        )
        guard case .object(let fields) = template else { return StateObject() }
        return StateObject(
            keysAndValues: fields.map {
                (
                    $0.key,
                    $0.value.evaluate(in: context, beatTime: startTime, startTime: startTime, speed: program.speed)
                )
            })
    }

    /// Whether an end is decided and waiting to go (for the next second): nothing more applies.
    public var endDecided: Bool { pending.active && pending.end }

    /// The push being gathered, when one waits: how many beats and changes it merged, when it
    /// goes, and whether it waits for a budget token (`defer`) rather than for min-interval or
    /// the next second. A live view shows it, so a held change does not look lost.
    public var heldPush: (merged: Int, until: Millis, deferred: Bool)? {
        guard pending.active, pending.flushAt != .max else { return nil }
        return (pending.merged, pending.flushAt, pending.deferredSince != nil)
    }

    /// The alert of the push being gathered, if it carries one: the newest alert of the beats and
    /// changes merged since the last push. A recording reads it to write each event's alert.
    public var pendingAlert: Alert<String>? { pending.active ? pending.alert : nil }

    // MARK: Looking ahead

    /// The next beat on the timeline and when it happens (with this copy's jitter), if any.
    public var nextBeat: (label: String, occurrence: Int, time: Millis)? {
        guard lifecycle != .ended, cursor < program.occurrences.count, nextOccurrence != .max else { return nil }
        let occurrence = program.occurrences[cursor]
        return (program.beats[Int(occurrence.beat)].label, Int(occurrence.n), nextOccurrence)
    }

    /// How far through its story the activity is, from 0 to 1 (1 once it has ended).
    public func progress(at now: Millis) -> Double {
        if lifecycle == .ended { return 1 }
        guard let length = program.storyLength, length > 0 else { return 0 }
        return min(1, max(0, Double(now - startTime) / Double(length)))
    }

    // MARK: Driving

    /// When the engine next needs to be woken, or `Millis.max` when it never does again.
    public var nextWake: Millis {
        if lifecycle == .ended { return .max }
        var t = nextOccurrence
        if lifecycle == .pending, program.startBeat == nil { t = min(t, startTime) }
        if pending.active { t = min(t, pending.flushAt) }
        if lifecycle == .active {
            t = min(t, heartbeatTime, capTime, renewalTime)
        }
        return t
    }

    /// Plays everything due at or before `now`, handing pushes to `sink`. Returns ``nextWake``.
    @discardableResult
    public mutating func advance<Sink: PushSink>(to now: Millis, writer: inout JSONWriter, sink: inout Sink) -> Millis {
        while true {
            let t = nextWake
            guard t <= now else { return t }
            if lifecycle == .pending, program.startBeat == nil, t >= startTime, nextOccurrence >= startTime {
                // The app started the activity: it shows the first state, nothing to send.
                lifecycle = .active
                activeSince = startTime
            } else if t == nextOccurrence {
                occur(at: t)
            } else if lifecycle == .active, t == renewalTime {
                renew(at: t, writer: &writer, sink: &sink)
            } else if pending.active, t == pending.flushAt {
                flush(at: t, force: false, writer: &writer, sink: &sink)
            } else if lifecycle == .active, t == capTime {
                reachMaxDuration(at: t, writer: &writer, sink: &sink)
            } else if lifecycle == .active, t == heartbeatTime {
                heartbeat(at: t, writer: &writer, sink: &sink)
            } else {
                return t
            }
        }
    }

    /// Applies the beat named `beatID` at `now`, as the bridge does when a webhook maps to it.
    /// Everything due before `now` is played first.
    ///
    /// With `advancing` false, nothing is played before or after: the caller applies several
    /// things at one instant (the actions of one webhook) and then calls ``advance(to:writer:sink:)``
    /// once, so they go in one push.
    @discardableResult
    public mutating func trigger<Sink: PushSink>(
        _ beatID: String, input: StateValue?, at now: Millis, writer: inout JSONWriter, sink: inout Sink,
        advancing: Bool = true
    ) -> TriggerOutcome {
        if advancing { advance(to: now, writer: &writer, sink: &sink) }
        guard let index = program.beatsByID[beatID] else { return .unknownBeat }
        switch lifecycle {
        case .ended: return .ended
        case .pending:
            guard program.beats[index].start != nil else { return .notStarted }
            lifecycle = .active
            activeSince = now
        case .active: if endDecided { return .ended }
        }
        beatCount += 1
        let changed = apply(beat: index, n: 0, at: now, input: input)
        if advancing { advance(to: now, writer: &writer, sink: &sink) }
        return changed ? .applied : .unchanged
    }

    /// Ends the activity now with what it shows and an immediate dismissal, as `liveline play`
    /// does on Ctrl-C. Anything waiting goes with it. Does nothing if it has ended or not begun.
    public mutating func stop<Sink: PushSink>(at now: Millis, writer: inout JSONWriter, sink: inout Sink) {
        guard lifecycle == .active else { return }
        var p = pending.active ? pending : Pending(active: true, firstAt: now, lastAt: now, flushAt: now)
        p.kind = .stopped
        p.end = true
        p.dismissal = .immediate
        p.high = false
        pending = p
        flush(at: max(now, (lastTimestamp &+ 1) * 1000), force: true, writer: &writer, sink: &sink)
    }

    /// Sends the current state again at `now` (or the next free second) with a fresh timestamp
    /// and stale date, as a heartbeat does; once ended, the end again with the final state and
    /// the policy's dismissal. A dead letter's replay sends this, never the old payload.
    /// Returns false before the activity has started: there is nothing on a device to refresh.
    @discardableResult
    public mutating func resend<Sink: PushSink>(at now: Millis, writer: inout JSONWriter, sink: inout Sink) -> Bool {
        advance(to: now, writer: &writer, sink: &sink)
        let t = max(now, nextSecond)
        switch lifecycle {
        case .pending:
            return false
        case .active:
            if pending.active {
                flush(at: t, force: true, writer: &writer, sink: &sink)
            } else {
                heartbeat(at: t, writer: &writer, sink: &sink)
            }
        case .ended:
            var p = Pending(active: true, firstAt: t, lastAt: t, flushAt: t)
            p.kind = .heartbeat
            p.end = true
            pending = p
            flush(at: t, force: true, writer: &writer, sink: &sink)
        }
        return true
    }

    // MARK: The timeline

    /// The time of the `index`-th occurrence, with this copy's jitter, never before the previous one.
    private func occurrenceTime(at index: Int) -> Millis {
        guard index < program.occurrences.count else { return .max }
        let occurrence = program.occurrences[index]
        var time = startTime + occurrence.offset
        let jitter = program.beats[Int(occurrence.beat)].jitter
        if jitter > 0 {
            let draw = SeededRandom.hash(seed, UInt64(occurrence.beat), UInt64(occurrence.n) | 0x6a69_7474_0000_0000)
            time += Millis(draw % UInt64(2 * jitter + 1)) - jitter
        }
        return max(time, lastOccurrence, startTime)
    }

    private mutating func occur(at t: Millis) {
        let occurrence = program.occurrences[cursor]
        cursor += 1
        lastOccurrence = t
        nextOccurrence = followsTimeline ? occurrenceTime(at: cursor) : .max
        guard lifecycle != .ended, !endDecided else { return }
        let beat = program.beats[Int(occurrence.beat)]
        beatCount += 1
        if beat.chance < 1 {
            let draw = SeededRandom.hash(seed, UInt64(occurrence.beat), UInt64(occurrence.n) | 0x6368_616e_0000_0000)
            if SeededRandom.unit(draw) >= beat.chance { return }
        }
        if lifecycle == .pending {
            guard beat.start != nil else { return }
            lifecycle = .active
            activeSince = t
        }
        apply(beat: Int(occurrence.beat), n: occurrence.n, at: t, input: nil)
    }

    /// Applies a beat's patch, relevance, stale-after and alert, and merges it into the pending
    /// push. Returns whether it changed anything.
    @discardableResult
    private mutating func apply(beat index: Int, n: Int32, at t: Millis, input: StateValue?) -> Bool {
        let beat = program.beats[index]
        var changed = false
        if beat.patchIsPrecomputed {
            for patch in beat.patch {
                let value: StateValue
                if let constant = patch.constant {
                    value = constant
                } else if let values = patch.byOccurrence, n >= 1, Int(n) <= values.count {
                    value = values[Int(n) - 1]
                } else {
                    continue
                }
                if state.set(value, field: patch.field, rest: patch.rest) { changed = true }
            }
        } else if !beat.patch.isEmpty {
            let elapsed = program.speed == 1 ? t - startTime : Millis(Double(t - startTime) * program.speed)
            var context = EvaluationContext(
                n: Int(n), elapsed: elapsed, activity: program.name, index: copy,
                seed: SeededRandom.hash(seed, UInt64(index), UInt64(n)), state: StateObject(), input: input
            )
            if beat.patchReadsState { context.state = state }
            for patch in beat.patch {
                let value =
                    patch.constant
                    ?? patch.value.evaluate(in: context, beatTime: t, startTime: startTime, speed: program.speed)
                if state.set(value, field: patch.field, rest: patch.rest) { changed = true }
            }
        }
        if let relevance = beat.relevance, relevance != self.relevance {
            self.relevance = relevance
            changed = true
        }
        if let staleAfter = beat.staleAfter, staleAfter != self.staleAfter {
            self.staleAfter = staleAfter
            changed = true
        }
        var alert: Alert<String>?
        if let spec = beat.alert {
            let context = EvaluationContext(
                n: Int(n), elapsed: t - startTime, activity: program.name, index: copy,
                seed: SeededRandom.hash(seed, UInt64(index), UInt64(n) | 0x616c_0000_0000_0000), state: state,
                input: input
            )
            alert = spec.resolve(in: context)
            changed = true
        }
        if beat.start != nil || beat.end { changed = true }
        guard changed else { return false }
        merge(
            at: t, beat: Int32(index), n: n, high: beat.priority == .high, alert: alert, start: beat.start,
            end: beat.end, dismissal: beat.dismissal)
        return true
    }

    /// Merges one beat (or external change) into the pending push, in place, and sets when it goes.
    mutating func merge(
        at t: Millis, beat: Int32, n: Int32, high: Bool, alert: Alert<String>?, start: StartSpec?, end: Bool,
        dismissal: Dismissal?
    ) {
        if !pending.active { pending = Pending(active: true, firstAt: t, lastAt: t, flushAt: .max) }
        pending.kind = beat >= 0 ? .beat : .event
        pending.merged += 1
        pending.lastAt = t
        pending.beat = beat
        pending.n = n
        if high { pending.high = true }
        if let alert { pending.alert = alert }
        if let start { pending.start = start }
        if end {
            pending.end = true
            pending.dismissal = dismissal
        }
        let due: Millis
        if pending.start != nil || pending.end || (pending.high && pending.deferredSince == nil) {
            due = t
        } else if pending.deferredSince != nil {
            due = pending.flushAt
        } else {
            due = lastPush == .min ? t : max(t, lastPush + program.policy.minInterval)
        }
        let flushAt = max(min(pending.flushAt, due), nextSecond)
        pending.flushAt = flushAt
    }

    // MARK: Pushes

    /// The first instant whose whole second is after the last push's timestamp.
    var nextSecond: Millis { lastTimestamp == .min ? .min : (lastTimestamp + 1) * 1000 }

    private var heartbeatTime: Millis {
        guard staleDeadline != .max else { return .max }
        return max(staleDeadline - program.policy.heartbeat, nextSecond)
    }

    /// When the engine ends the activity: the system's limit, or a renewing story's `until`.
    private var capTime: Millis {
        activeSince == .max ? .max : min(activeSince + program.policy.maxDuration, storyLimitTime)
    }

    private mutating func heartbeat<Sink: PushSink>(at t: Millis, writer: inout JSONWriter, sink: inout Sink) {
        if pending.active {
            // Something is waiting (for min-interval, or deferred for a token): send it now instead.
            flush(at: t, force: true, writer: &writer, sink: &sink)
            return
        }
        var p = Pending(active: true, firstAt: t, lastAt: t, flushAt: t)
        p.kind = .heartbeat
        pending = p
        flush(at: t, force: true, writer: &writer, sink: &sink)
    }

    private mutating func reachMaxDuration<Sink: PushSink>(at t: Millis, writer: inout JSONWriter, sink: inout Sink) {
        var p = pending.active ? pending : Pending(active: true, firstAt: t, lastAt: t, flushAt: t)
        p.kind = t >= storyLimitTime ? .reachedStoryLimit : .reachedMaxDuration
        p.end = true
        p.high = false
        pending = p
        flush(at: max(t, nextSecond), force: true, writer: &writer, sink: &sink)
    }

    /// Sends the pending push at `t`, unless the budget defers it. `force` sends it regardless.
    private mutating func flush<Sink: PushSink>(at t: Millis, force: Bool, writer: inout JSONWriter, sink: inout Sink) {
        guard pending.active else { return }
        var p = pending
        pending = Pending(firstAt: 0, lastAt: 0, flushAt: .max)
        let policy = program.policy
        var priority = Priority.low
        var budget = PushReason.Budget.notCharged
        if p.high {
            if bucket.spend(at: t) {
                priority = .high
                let left = bucket.available(at: t)
                budget =
                    p.deferredSince.map { .deferred(t - $0, left: left, of: policy.budget) }
                    ?? .spent(left: left, of: policy.budget)
            } else if policy.overBudget == .defer, !force, p.start == nil, !p.end,
                let token = bucket.nextToken(after: t), token < min(heartbeatTime, capTime)
            {
                if p.deferredSince == nil { p.deferredSince = t }
                p.flushAt = max(token, nextSecond)
                pending = p
                return
            } else if let since = p.deferredSince {
                budget = .deferredThenDowngraded(t - since, of: policy.budget)
            } else {
                budget = .downgraded(of: policy.budget)
            }
        }

        let event: PushEvent = p.start != nil ? .start : p.end ? .end : .update
        let timestamp = t / 1000
        let staleDate = staleAfter.map { timestamp + ($0 + 999) / 1000 }
        var dismissalDate: Int64?
        if p.end {
            switch p.dismissal ?? policy.dismissal {
            case .default: dismissalDate = nil
            case .immediate: dismissalDate = timestamp - 1
            case .after(let d): dismissalDate = timestamp + d / 1000
            }
        }
        var start: StartContent?
        if let input = p.start {
            start = StartContent(attributesType: program.spec.attributesType, attributes: attributes(), input: input)
        }
        writer.reset()
        APSEncoder.encode(
            into: &writer, event: event, timestamp: timestamp, state: state, encodedKeys: program.encodedKeys,
            staleDate: staleDate, dismissalDate: dismissalDate, relevance: relevance, alert: p.alert, start: start
        )
        let label = p.beat >= 0 ? program.beats[Int(p.beat)].label : p.externalLabel ?? ""
        let reason = PushReason(
            kind: p.kind, beat: label, occurrence: Int(p.n), merged: p.merged, budget: budget,
            held: (p.kind == .beat || p.kind == .event) && t > p.lastAt ? t - p.firstAt : 0,
            staleIn: p.kind == .heartbeat ? staleDeadline - t : 0
        )
        let push = Push(
            activity: id, sequence: pushCount, time: t, event: event, priority: priority, timestamp: timestamp,
            expiration: policy.expiration == 0 ? 0 : timestamp + policy.expiration / 1000,
            payload: writer.bytes, reason: reason, staleDate: staleDate, dismissalDate: dismissalDate, alert: p.alert,
            generation: renewals
        )
        if p.end { lifecycle = .ended }
        if writer.count > payloadLimit {
            sink.reject(push, problem: .tooLarge(bytes: writer.count, limit: payloadLimit), from: self)
            return
        }
        lastTimestamp = timestamp
        lastPush = t
        staleDeadline = staleDate.map { $0 * 1000 } ?? .max
        pushCount += 1
        sink.receive(push, from: self)
    }

}
