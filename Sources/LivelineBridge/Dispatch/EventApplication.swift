import HTTPTypes
import Liveline

/// What a dispatch step does with one stored event: map it again with its source's rules (the
/// inbox keeps the raw body and the headers the rules read), check its order key against the
/// newest applied of its source, and apply its actions to the engine at one instant without
/// flushing between them (`advancing: false`), so that one event is at most one push.
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
            let newer = state.lastEventIDs[event.source].map { " (\($0))" } ?? ""
            return .superseded("older than an event already applied\(newer): order key \(event.orderKey) < \(last)")
        }
        if let reason = apply(mapped, of: event, to: &engine, at: t, writer: &writer, sink: &sink) {
            return .superseded(reason)
        }
        state.lastOrderKeys[event.source] = max(state.lastOrderKeys[event.source] ?? .min, event.orderKey)
        state.lastEventIDs[event.source] = event.eventID
        return .applied(mapped)
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
                    return "'\(event.eventType)' starts the activity, but '\(engine.program.name)' has no start beat with an id"
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
                switch engine.apply(.endNow(label: event.eventType, dismissal: dismissal), at: t, writer: &writer, sink: &sink, advancing: false) {
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
