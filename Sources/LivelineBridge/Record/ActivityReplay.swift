import Foundation
import Liveline

/// Plays an activity's stored events again the way the bridge's dispatch steps applied them,
/// and notes what each one did, so that a recording can write it as a beat.
///
/// The steps are rebuilt from the store: events a step took up share its time
/// (``DispatchedEvent/dispatchedAt``), and within a step they come by order key, then arrival,
/// as the dispatcher claimed them. Each step runs as ``BridgeDispatcher`` runs one: the engine
/// starts where the bridge's did (the stored snapshot's start), plays what was due by the
/// step's whole second, applies the step's events through `EventApplication` without
/// flushing between them, and plays what is due again. Before and after each event the
/// content-state, relevance and pending alert are compared, which gives the beat: the fields it
/// changed (templates and `!date +14m` already evaluated), its priority, alert, start and end.
///
/// The engine is pure and the mapping too, so this is what the bridge decided, unless the
/// configuration changed since or a dead letter was sent again; the result's warnings say so
/// when the replay ends elsewhere than the stored engine.
struct ActivityReplay: Sendable {
    let catalog: StoryCatalog

    func replay(_ activity: RegisteredActivity, events: [DispatchedEvent]) throws(RecordingError) -> RecordedActivity {
        var storedState: BridgeActivityState?
        if let bytes = activity.engineState { storedState = try? BridgeActivityState.decode(bytes) }
        let sourceName =
            storedState?.source
            ?? (catalog[activity.source] != nil ? activity.source : nil)
            ?? events.first(where: { catalog[$0.event.source] != nil })?.event.source
            ?? catalog.sourceNames.first
        guard let sourceName, let story = catalog[sourceName] else {
            throw .noStory(activityKey: activity.activityKey, source: activity.source)
        }
        let storedEngine = storedState.flatMap { try? ActivityEngine(program: story.program, snapshot: $0.engine) }
        let steps = Self.steps(events)
        guard let first = steps.first?.first else { throw .nothingDispatched(activityKey: activity.activityKey) }

        let start = storedEngine?.startTime ?? BridgeClock.wholeSecond(first.dispatchedAt)
        var engine = ActivityEngine(
            program: story.program, id: 0, scenarioStart: start - story.program.offset,
            payloadLimit: storedEngine?.payloadLimit ?? PayloadLimits.device, followsTimeline: false)
        var state = BridgeActivityState(source: sourceName, engine: engine.snapshot)
        let initialState = engine.initialState()
        let relevance = engine.relevance
        let application = EventApplication(catalog: catalog)
        var sink = PushCollector()
        var writer = JSONWriter()
        var entries: [RecordedEntry] = []
        var warnings: [String] = []
        var lastOffset: Millis = -1

        for step in steps {
            let t = max(BridgeClock.wholeSecond(step[0].dispatchedAt), engine.lastPushTime ?? .min)
            // What the bridge played before the step's events; a deadline at exactly `t` (other
            // than the start itself) must stay before them in the recording too.
            engine.advance(to: t - 1, writer: &writer, sink: &sink)
            let startsNow = engine.lifecycle == .pending && story.program.startBeat == nil && t == engine.startTime
            var offset = t - start + (engine.nextWake == t && !startsNow ? 1 : 0)
            if offset <= lastOffset { offset = lastOffset + 1 }
            engine.advance(to: t, writer: &writer, sink: &sink)
            for event in step {
                let before = (state: engine.state, relevance: engine.relevance)
                let outcome = application.apply(
                    event.event, to: &engine, state: &state, at: t, writer: &writer, sink: &sink)
                switch outcome {
                case .ignored:
                    entries.append(.note(event, "no rule for it: recorded only"))
                case .superseded(let reason):
                    entries.append(.note(event, "superseded: \(reason)"))
                    if event.supersededReason == nil {
                        warnings.append(
                            "event \(event.event.eventID) was applied by the bridge but is superseded now (\(reason)); has the configuration changed?"
                        )
                    }
                case .applied(let mapped):
                    if let reason = event.supersededReason {
                        warnings.append(
                            "event \(event.event.eventID) was superseded by the bridge (\(reason)) but applies now; has the configuration changed?"
                        )
                    }
                    if let beat = Self.beat(of: mapped, event: event, offset: offset, before: before, engine: engine) {
                        entries.append(.beat(beat))
                        lastOffset = offset
                    } else {
                        entries.append(.note(event, "changed nothing"))
                    }
                }
            }
            engine.advance(to: t, writer: &writer, sink: &sink)
        }

        // What the bridge played after the last event (heartbeats, an end at max-duration), up to
        // its last push; then the replay must stand where the stored engine stands.
        if let storedEngine {
            if let last = storedEngine.lastPushTime { engine.advance(to: last, writer: &writer, sink: &sink) }
            if engine.state != storedEngine.state || engine.pushCount != storedEngine.pushCount {
                warnings.append(
                    "played again, '\(activity.activityKey)' ends with \(CountText.of(engine.pushCount, "push", "pushes")) and not the state the bridge stored (\(CountText.of(storedEngine.pushCount, "push", "pushes"))); the configuration may have changed since, or a dead letter was sent again"
                )
            }
        }
        warnings += sink.problems
        return RecordedActivity(
            activityKey: activity.activityKey, source: sourceName, spec: story.program.spec,
            scenario: story.source.scenario,
            start: start,
            attributes: engine.attributes(), initialState: initialState, relevance: relevance, entries: entries,
            pushes: sink.pushes, warnings: warnings, ended: engine.lifecycle == .ended)
    }

    /// The dispatch steps: runs of events with the same step time.
    static func steps(_ events: [DispatchedEvent]) -> [[DispatchedEvent]] {
        var steps: [[DispatchedEvent]] = []
        for event in events {
            if let last = steps.last?.last, last.dispatchedAt == event.dispatchedAt {
                steps[steps.count - 1].append(event)
            } else {
                steps.append([event])
            }
        }
        return steps
    }

    /// What an applied event did, or nil when it changed nothing.
    private static func beat(
        of mapped: MappedEvent, event: DispatchedEvent, offset: Millis,
        before: (state: StateObject, relevance: Double?),
        engine: ActivityEngine
    ) -> RecordedBeat? {
        var set = StateObject()
        for (key, value) in zip(engine.state.keys, engine.state.values) where before.state[key] != value {
            set[key] = value
        }
        let spec = engine.program.spec
        var high = false
        var alerts = false
        var start: StartSpec?
        var end: Dismissal??
        var staleAfter: Millis??
        func take(_ beat: BeatSpec) {
            if (beat.priority ?? (beat.start != nil ? .high : spec.policy.priority)) == .high { high = true }
            if beat.alert != nil { alerts = true }
            if let spec = beat.start { start = spec }
            if let spec = beat.end { end = .some(spec.dismissal) }
            if let value = beat.staleAfter { staleAfter = .some(value) }
        }
        for action in mapped.actions {
            switch action {
            case .start:
                if let index = spec.startBeat { take(spec.beats[index]) }
            case .trigger(let id, _):
                if let beat = spec.beats.first(where: { $0.id == id }) { take(beat) }
            case .change(let change):
                if change.priority == .high { high = true }
                if change.alert != nil { alerts = true }
                if change.end { end = .some(change.dismissal) }
            case .end(let dismissal):
                end = .some(dismissal)
            }
        }
        let relevance = engine.relevance != before.relevance ? engine.relevance : nil
        let alert = alerts ? engine.pendingAlert : nil
        guard set.count > 0 || relevance != nil || alert != nil || start != nil || end != nil || staleAfter != nil
        else { return nil }
        return RecordedBeat(
            event: event, offset: offset, set: set, relevance: relevance, priority: high ? .high : .low, alert: alert,
            start: start, end: end, staleAfter: staleAfter)
    }
}
