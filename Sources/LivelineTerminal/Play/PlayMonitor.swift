import Foundation
import Liveline
import LivelineAPNs
import NIOConcurrencyHelpers

/// What `liveline play` shows: the activities as the phone holds them, the last push of each
/// with its reason and outcome, and what comes next.
///
/// **Concurrency.** The play loop publishes engine snapshots and submitted pushes; delivery
/// events arrive from NIO event loops; a renderer reads. Everything goes through one lock, held
/// only to copy small values.
public final class PlayMonitor: Sendable {
    /// An activity as the engine has it, copied out of the play loop.
    struct EngineView: Sendable {
        var state: StateObject
        var relevance: Double?
        var lifecycle: ActivityEngine.Lifecycle
        var next: (label: String, occurrence: Int, time: Millis)?
        var progress: Double
        var budget: Int
        var budgetOf: Int
        var staleTime: Millis?
        var pushCount: Int
        var beatCount: Int
        var lastPushTime: Millis?
        var held: (merged: Int, until: Millis, deferred: Bool)?
        var minInterval: Millis
    }

    struct ActivityView: Sendable {
        var name: String
        var attributes: String
        var engine: EngineView
        var lastPush: Push?
        var lastResult: String?
        var stopped: String?
        var lastAlert: String?
        /// When the newest push APNs accepted was decided: what the device shows.
        var deliveredPushTime: Millis?
        var delivered = 0
        var failed = 0
    }

    struct State: Sendable {
        var activities: [ActivityView]
        var retrying = 0
        var configurationError: String?
    }

    public let scenario: Scenario
    /// When the story starts, UNIX milliseconds.
    public let start: Millis
    /// How much faster than real time the story runs.
    public let speed: Double
    private let state: NIOLockedValueBox<State>

    public init(scenario: Scenario, start: Millis, speed: Double, activities: [ActivityEngine]) {
        self.scenario = scenario
        self.start = start
        self.speed = speed
        let views = activities.map { engine -> ActivityView in
            let attributes = engine.attributes()
            let text =
                ([engine.program.spec.attributesType]
                + zip(attributes.keys, attributes.values).map { "\($0) \($1.cardText(now: start))" }).joined(
                    separator: " · ")
            return ActivityView(name: engine.program.name, attributes: text, engine: Self.view(of: engine, now: start))
        }
        state = NIOLockedValueBox(State(activities: views))
    }

    static func view(of engine: ActivityEngine, now: Millis) -> EngineView {
        var bucket = engine.bucket
        return EngineView(
            state: engine.state, relevance: engine.relevance, lifecycle: engine.lifecycle, next: engine.nextBeat,
            progress: engine.progress(at: now), budget: bucket.available(at: now),
            budgetOf: engine.program.policy.budget,
            staleTime: engine.staleTime, pushCount: engine.pushCount, beatCount: engine.beatCount,
            lastPushTime: engine.lastPushTime, held: engine.heldPush, minInterval: engine.program.policy.minInterval
        )
    }

    /// From the play loop: the activities after a wake.
    public func publish(_ activities: [ActivityEngine], now: Millis) {
        let views = activities.map { Self.view(of: $0, now: now) }
        state.withLockedValue { state in
            for (i, view) in views.enumerated() where i < state.activities.count { state.activities[i].engine = view }
        }
    }

    /// From the sink: a push handed to delivery.
    public func submitted(_ push: Push) {
        state.withLockedValue { state in
            guard state.activities.indices.contains(push.activity) else { return }
            state.activities[push.activity].lastPush = push
            state.activities[push.activity].lastResult = "sending"
            if let alert = APSPayload.aps(in: push.payload).flatMap(APSPayload.alertText) {
                state.activities[push.activity].lastAlert = alert
            }
        }
    }

    /// From a live session: everything it reports.
    public func record(_ event: SessionEvent) {
        switch event {
        case .decided(let push, _): submitted(push)
        case .delivery(let delivery): record(delivery)
        case .woke(let activities, let now): publish(activities, now: now)
        case .refused, .triggered, .changed, .targetSet, .stopping, .finished: break
        }
    }

    /// From delivery: what happened to a push.
    public func record(_ event: DeliveryEvent) {
        state.withLockedValue { state in
            switch event {
            case .sent:
                break
            case .abandoned(let activity, _, let reason):
                guard state.activities.indices.contains(activity) else { return }
                state.activities[activity].failed += 1
                state.activities[activity].lastResult = "abandoned: \(reason)"
            case .notRenewed(let activity, _, let reason):
                guard state.activities.indices.contains(activity) else { return }
                state.activities[activity].lastResult = "not renewed: \(reason)"
            case .delivered(let activity, let push, let response, let attempts, let latency):
                guard state.activities.indices.contains(activity) else { return }
                state.activities[activity].delivered += 1
                state.activities[activity].deliveredPushTime = max(
                    state.activities[activity].deliveredPushTime ?? .min, push.time)
                state.activities[activity].lastResult =
                    "\(response.status)" + (attempts > 1 ? " after \(attempts) tries" : "") + " in \(latency)ms"
            case .retrying(let activity, _, let failure, let attempt, let after):
                guard state.activities.indices.contains(activity) else { return }
                state.retrying += 1
                state.activities[activity].lastResult = "\(failure), retry \(attempt) in \(after)ms"
            case .superseded:
                break
            case .rejected(let activity, _, let response):
                guard state.activities.indices.contains(activity) else { return }
                state.activities[activity].failed += 1
                state.activities[activity].lastResult = "rejected: \(response)"
            case .stopped(let activity, let reason):
                guard state.activities.indices.contains(activity) else { return }
                state.activities[activity].stopped = reason
            case .gaveUp(let activity, _, let failure):
                guard state.activities.indices.contains(activity) else { return }
                state.activities[activity].failed += 1
                state.activities[activity].lastResult = "gave up: \(failure)"
            case .configurationError(let advice):
                state.configurationError = advice
            }
        }
    }

    /// Story time of an instant: `+33:27`.
    public func storyClock(_ time: Millis) -> String {
        DurationText.clock(Millis(Double(time - start) * speed))
    }

    /// One line for a delivery event, for output that is not a terminal.
    public func line(for event: DeliveryEvent, deviceOutcome: String? = nil) -> String? {
        let names = state.withLockedValue { $0.activities.map(\.name) }
        func name(_ i: Int) -> String { names.indices.contains(i) ? names[i] : "activity \(i)" }
        switch event {
        case .delivered(let activity, let push, let response, let attempts, let latency):
            var text =
                "\(storyClock(push.time)) \(name(activity)) \(push.event.rawValue) p\(push.priority.apnsValue) → \(response.status)"
            if let deviceOutcome { text += " \(deviceOutcome)" }
            text += " · \(push.reason) · \(latency)ms"
            if attempts > 1 { text += " · \(attempts) tries" }
            return text
        case .rejected(let activity, let push, let response):
            return
                "\(storyClock(push.time)) \(name(activity)) \(push.event.rawValue) p\(push.priority.apnsValue) → \(response) (not retried) · \(push.reason)"
        case .retrying(let activity, let push, let failure, let attempt, let after):
            return "\(storyClock(push.time)) \(name(activity)) \(failure): retry \(attempt) in \(after)ms"
        case .superseded(let activity, let dropped, _):
            return "\(storyClock(dropped.time)) \(name(activity)) a newer push replaces one waiting to retry"
        case .stopped(let activity, let reason):
            return "\(name(activity)) stopped: \(reason)"
        case .gaveUp(let activity, let push, let failure):
            return "\(storyClock(push.time)) \(name(activity)) gave up after retries: \(failure)"
        case .configurationError(let advice):
            return "APNs configuration error: \(advice)"
        case .sent:
            return nil
        case .abandoned(let activity, let push, let reason):
            return
                "\(storyClock(push.time)) \(name(activity)) \(push.event.rawValue) p\(push.priority.apnsValue) abandoned: \(reason)"
        case .notRenewed(let activity, let push, let reason):
            return "\(storyClock(push.time)) \(name(activity)) renewal \(push.event.rawValue) not sent: \(reason)"
        }
    }

    /// The cards of every activity at `now`. `device` gives what a device shows, when known.
    public func cards(now: Millis, device: (Int) -> DeviceSnapshot?) -> [ActivityCard] {
        let views = state.withLockedValue { $0.activities }
        return views.enumerated().map { index, view in card(view, device: device(index), now: now) }
    }

    private func card(_ view: ActivityView, device: DeviceSnapshot?, now: Millis) -> ActivityCard {
        let engine = view.engine
        var status: ActivityCard.Status
        switch device?.lifecycle ?? engine.lifecycle.rawValue {
        case "pending": status = .pending
        case "stale": status = .stale
        case "ended": status = .ended
        case "dismissed": status = .dismissed
        default: status = .active
        }
        if device == nil, status == .active, let stale = engine.staleTime, stale <= now { status = .stale }
        if view.stopped != nil { status = .stopped }

        // Field values as the device decoded them when it can tell, else as sent.
        let shown = device?.contentState
        let fields = zip(engine.state.keys, engine.state.values).map { key, sent -> (key: String, value: String) in
            guard let shown, let value = shown[key] else { return (key, sent.cardText(now: now)) }
            return (key, Self.deviceText(value, like: sent, now: now))
        }
        var facts: [String] = []
        if let relevance = device?.relevance ?? engine.relevance {
            facts.append("relevance \(StateValue.double(relevance).templateText)")
        }
        facts.append("budget \(device?.budgetRemaining ?? engine.budget)/\(engine.budgetOf)")
        if let stale = engine.staleTime { facts.append("stale \(StateValue.clockText(stale, now: now))") }
        facts.append("\(engine.pushCount) \(engine.pushCount == 1 ? "push" : "pushes"), \(view.delivered) delivered")

        var last: String?
        if let push = view.lastPush {
            last = "\(storyClock(push.time)) \(push.event.rawValue) p\(push.priority.apnsValue) \(push.reason)"
            if let result = view.lastResult { last? += " → \(result)" }
            if let outcome = device?.lastOutcome { last? += ", \(outcome)" }
        }
        var next: String?
        if let upcoming = engine.next {
            let label = upcoming.occurrence > 0 ? "\(upcoming.label) #\(upcoming.occurrence)" : upcoming.label
            next = "\(label) at \(storyClock(upcoming.time)), \(Self.wait(upcoming.time - now))"
        } else if engine.lifecycle == .ended {
            next = "nothing: the activity has ended"
        }
        let (clock, held, why) = timing(view, now: now)
        var warnings = device?.problems ?? []
        if let stopped = view.stopped { warnings.append(stopped) }
        return ActivityCard(
            name: view.name, status: status, attributes: view.attributes, fields: fields,
            alert: device?.lastAlert ?? view.lastAlert, facts: facts, lastPush: last, next: next,
            progress: engine.progress, progressText: "\(Int((engine.progress * 100).rounded()))%", warnings: warnings,
            clock: clock, held: held, why: why
        )
    }

    /// The card's lines about time: the story's clock beside what the device shows; the push
    /// the engine holds and until when; and, when the story runs faster than real time and
    /// beats were merged, why there are fewer pushes than beats.
    private func timing(_ view: ActivityView, now: Millis) -> (clock: String, held: String?, why: String?) {
        let engine = view.engine
        let pace = speed == 1 ? "in real time" : "at \(StateValue.double(speed).templateText)×"
        var clock = "\(storyClock(now)) \(pace)"
        if let shown = view.deliveredPushTime {
            clock += " · the device shows the push of \(storyClock(shown))"
        } else if engine.lifecycle != .pending {
            clock += " · the device shows the first state"
        }
        var held: String?
        if let waiting = engine.held, engine.lifecycle != .ended {
            let cause: String
            if waiting.deferred {
                cause = "a priority-10 token (budget \(engine.budget)/\(engine.budgetOf))"
            } else if let last = engine.lastPushTime, engine.minInterval > 1000,
                waiting.until - last >= engine.minInterval
            {
                cause = "min-interval \(DurationText.format(engine.minInterval)) after the last push"
            } else {
                cause = "the next second (one push a second)"
            }
            let what = CountText.of(waiting.merged, "change waits", "changes wait")
            held = "\(what) for \(cause): sent at \(storyClock(waiting.until)), \(Self.wait(waiting.until - now))"
        }
        var why: String?
        if speed > 1, engine.beatCount > engine.pushCount {
            why =
                "\(CountText.of(engine.beatCount, "beat")) in \(CountText.of(engine.pushCount, "push", "pushes")): at \(StateValue.double(speed).templateText)× min-interval "
                + "(\(DurationText.format(engine.minInterval))) and the budget (\(engine.budgetOf) p10/h) keep real time"
        }
        return (clock, held, why)
    }

    /// `in 0.8s` under ten seconds (beats a second apart at 60× would all read "in 0s"), else
    /// `in 4m12s`; `now` when due.
    static func wait(_ millis: Millis) -> String {
        if millis <= 0 { return "now" }
        if millis < 10_000 { return "in " + String(format: "%.1fs", Double(millis) / 1000) }
        return "in \(DurationText.format(millis / 1000 * 1000))"
    }

    /// A device value (JSON as decoded) shown like the sent value: dates from reference seconds.
    static func deviceText(_ value: StateValue, like sent: StateValue, now: Millis) -> String {
        switch (sent, value) {
        case (.date, .int(let seconds)):
            return StateValue.date((Millis(seconds) + ReferenceDate.unixOffsetSeconds) * 1000).cardText(now: now)
        case (.date, .double(let seconds)):
            return StateValue.date(Millis((seconds + Double(ReferenceDate.unixOffsetSeconds)) * 1000)).cardText(
                now: now)
        default:
            return value.cardText(now: now)
        }
    }

    /// The totals, for the end of a run.
    public func summary() -> String {
        state.withLockedValue { state in
            let pushes = state.activities.map(\.engine.pushCount).reduce(0, +)
            let delivered = state.activities.map(\.delivered).reduce(0, +)
            let failed = state.activities.map(\.failed).reduce(0, +)
            let stopped = state.activities.filter { $0.stopped != nil }.count
            var text =
                "\(pushes) \(pushes == 1 ? "push" : "pushes"), \(delivered) delivered, \(state.retrying) \(state.retrying == 1 ? "retry" : "retries"), \(failed) failed"
            if stopped > 0 { text += ", \(stopped) \(stopped == 1 ? "activity" : "activities") stopped by APNs" }
            return text
        }
    }
}
