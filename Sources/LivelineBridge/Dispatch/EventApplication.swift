import HTTPTypes
import Liveline

/// What a dispatch step does with one stored event: map it again with its source's rules (the
/// inbox keeps the raw body and the headers the rules read), check its order key against the
/// newest applied of its source, and apply its actions to the engine at one instant without
/// flushing between them (`advancing: false`), so that one event is at most one push.
///
/// **A late event** (its order key below the newest applied of its source) applies in part:
/// the content-state fields it would set, by its rules or by the beat it triggers, that no
/// newer applied event has set (last writer wins per field, by order key), and nothing else
/// (its beat's place in the story, a start, an end, relevance and alerts would take the story
/// back). When every field it sets was set by a newer event, it is superseded whole. So a late
/// `DASHER_CONFIRMED` still shows the courier's name after `DASHER_PICKED_UP`, and never
/// undoes the message, ETA or progress that `DASHER_PICKED_UP` set.
///
/// Pure apart from the engine and state it is given: the dispatcher runs it on live events,
/// and a recording runs it again on the stored ones to see what each did.
struct EventApplication: Sendable {
    enum Outcome: Sendable, Hashable {
        /// Its actions were applied (or changed nothing).
        case applied(MappedEvent)
        /// No rule names its type: recorded only; its order key means nothing.
        case ignored(MappedEvent)
        /// Kept but not applied, with why: older than one applied, unmappable now, the story
        /// cannot take it (an unknown beat, a field of the wrong type, the activity has ended).
        case superseded(String)
    }

    let catalog: StoryCatalog

    /// Applies `event` to `engine` at `t`, updating the newest order key of its source in `state`.
    func apply<Sink: PushSink>(
        _ event: InboxEvent, to engine: inout ActivityEngine, state: inout BridgeActivityState, at t: Millis,
        writer: inout JSONWriter, sink: inout Sink
    ) -> Outcome {
        let mapped: MappedEvent
        switch map(event) {
        case .success(let value): mapped = value
        case .failure(let problem): return .superseded(problem.reason)
        }
        if mapped.isIgnored { return .ignored(mapped) }
        if let last = state.lastOrderKeys[event.source], event.orderKey < last {
            return applyLate(
                mapped, of: event, newest: last, to: &engine, state: &state, at: t, writer: &writer, sink: &sink)
        }
        let before = engine.state
        if let reason = apply(mapped, of: event, to: &engine, at: t, writer: &writer, sink: &sink) {
            return .superseded(reason)
        }
        state.markFieldsSet(
            Self.changedFields(from: before, to: engine.state) + Self.fieldsSet(by: mapped.actions),
            source: event.source,
            orderKey: event.orderKey
        )
        state.lastOrderKeys[event.source] = max(state.lastOrderKeys[event.source] ?? .min, event.orderKey)
        state.lastEventIDs[event.source] = event.eventID
        return .applied(mapped)
    }

    /// A late event: only its fields that no newer applied event set. What the event would set
    /// (by its rules and by the beat it triggers) is found by applying it whole to a copy of the
    /// engine; the fields it changed there that no newer event set are then applied alone.
    private func applyLate<Sink: PushSink>(
        _ mapped: MappedEvent, of event: InboxEvent, newest: Int64, to engine: inout ActivityEngine,
        state: inout BridgeActivityState,
        at t: Millis, writer: inout JSONWriter, sink: inout Sink
    ) -> Outcome {
        let newer = state.lastEventIDs[event.source].map { " (\($0))" } ?? ""
        let older = "older than an event already applied\(newer): order key \(event.orderKey) < \(newest)"
        // A state from before per-field order keys cannot say which fields are newer.
        guard state.fieldOrderKeys[event.source] != nil else { return .superseded(older) }
        var trial = engine
        var trialWriter = JSONWriter()
        var discarded = DiscardingSink()
        if let reason = apply(mapped, of: event, to: &trial, at: t, writer: &trialWriter, sink: &discarded) {
            return .superseded("\(older); \(reason)")
        }
        let fresh = Self.changedFields(from: engine.state, to: trial.state).compactMap {
            field -> ExternalChange.FieldChange? in
            guard state.newerSetter(of: field, source: event.source, than: event.orderKey) == nil,
                let value = trial.state[field]
            else { return nil }
            return ExternalChange.FieldChange([field], value)
        }
        guard !fresh.isEmpty else { return .superseded(older + "; every field it sets was set by a newer event") }
        let part = MappedEvent(
            eventID: mapped.eventID, eventIDIsBodyHash: mapped.eventIDIsBodyHash, eventType: mapped.eventType,
            activityKey: mapped.activityKey, orderKey: mapped.orderKey,
            actions: [.change(ExternalChange(label: event.eventType, set: fresh))]
        )
        if let reason = apply(part, of: event, to: &engine, at: t, writer: &writer, sink: &sink) {
            return .superseded("\(older); its fields no newer event set could not be applied: \(reason)")
        }
        state.markFieldsSet(fresh.map(Self.path), source: event.source, orderKey: event.orderKey)
        return .applied(mapped)
    }

    /// A field's dotted path, as `BridgeActivityState.fieldOrderKeys` keeps it.
    private static func path(_ field: ExternalChange.FieldChange) -> String { field.path.joined(separator: ".") }

    /// The fields an event's own rules set.
    private static func fieldsSet(by actions: [MappedAction]) -> [String] {
        actions.flatMap { action -> [String] in
            guard case .change(let change) = action else { return [] }
            return change.set.map(path)
        }
    }

    /// Takes a trial's pushes and drops them.
    private struct DiscardingSink: PushSink {
        mutating func receive(_ push: Push, from activity: ActivityEngine) {}
        mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {}
    }

    /// The top-level fields whose value changed (what a triggered beat set).
    private static func changedFields(from before: StateObject, to after: StateObject) -> [String] {
        guard before != after else { return [] }
        return after.keys.filter { before[$0] != after[$0] }
    }

    private struct Unmappable: Error {
        var reason: String
    }

    /// Maps a stored event again with its source's rules (mapping is pure).
    private func map(_ event: InboxEvent) -> Result<MappedEvent, Unmappable> {
        guard let story = catalog[event.source] else {
            return .failure(Unmappable(reason: "source '\(event.source)' is no longer configured"))
        }
        var headers = HTTPFields()
        for (name, value) in event.headers {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        do {
            return .success(try story.mapper.map(body: event.body, headers: headers))
        } catch {
            return .failure(Unmappable(reason: "the event no longer maps: \(error)"))
        }
    }

    /// Applies a mapped event's actions at one instant, without flushing between them; nil when
    /// applied, else why not.
    private func apply<Sink: PushSink>(
        _ mapped: MappedEvent, of event: InboxEvent, to engine: inout ActivityEngine, at t: Millis,
        writer: inout JSONWriter, sink: inout Sink
    ) -> String? {
        if engine.lifecycle == .ended || engine.endDecided { return "the activity has ended" }
        var didSomething = false
        for action in mapped.actions {
            switch action {
            case .start:
                guard let index = engine.program.startBeat, let beat = engine.program.beatID(at: index) else {
                    return
                        "'\(event.eventType)' starts the activity, but '\(engine.program.name)' has no start beat with an id"
                }
                switch engine.trigger(beat, input: nil, at: t, writer: &writer, sink: &sink, advancing: false) {
                case .applied, .unchanged: didSomething = true
                case .ended: return "the activity has ended"
                case .unknownBeat, .notStarted: return "the start beat could not be triggered"
                }
            case .trigger(let beat, let input):
                switch engine.trigger(beat, input: input, at: t, writer: &writer, sink: &sink, advancing: false) {
                case .applied, .unchanged: didSomething = true
                case .unknownBeat: return "'\(engine.program.name)' has no beat with id '\(beat)'"
                case .notStarted: return "the activity has not started (no start push yet)"
                case .ended: return "the activity has ended"
                }
            case .change(let change):
                switch engine.apply(change, at: t, writer: &writer, sink: &sink, advancing: false) {
                case .applied, .unchanged: didSomething = true
                case .notStarted: return "the activity has not started (no start push yet)"
                case .ended: return "the activity has ended"
                case .invalid(let problem): return problem.description
                }
            case .end(let dismissal):
                switch engine.apply(
                    .endNow(label: event.eventType, dismissal: dismissal), at: t, writer: &writer, sink: &sink,
                    advancing: false)
                {
                case .applied, .unchanged: didSomething = true
                case .notStarted: return "the activity has not started (no start push yet)"
                case .ended: return "the activity has ended"
                case .invalid(let problem): return problem.description
                }
            }
        }
        return didSomething || mapped.actions.isEmpty ? nil : "nothing to do"
    }
}
