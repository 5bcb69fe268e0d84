/// One activity's story, compiled for playing, and shared by every copy that plays it.
///
/// Compiling expands repeating beats into a sorted list of occurrences, resolves each patch to a
/// field index, pre-evaluates constant values and pre-encodes the content-state keys. A load test
/// of 100,000 copies holds one program; each ``ActivityEngine`` holds only its own state and a
/// cursor into `occurrences`.
///
/// `speed` compresses the story for real-time play: beat times, activity offsets, jitter and
/// `!date` offsets are divided by it. The policy is not: min-interval, the budget, stale-after,
/// heartbeats, expiration and dismissal are the device's rules, in real time.
public final class ActivityProgram: Sendable {
    /// One occurrence of a beat on the timeline.
    struct Occurrence: Sendable {
        /// After the activity start, already divided by the speed.
        var offset: Millis
        var beat: Int32
        /// The occurrence number of a repeating beat, from 1; 0 for one-off beats.
        var n: Int32
    }

    /// A beat, ready to apply. A class so that engines share it with one reference count.
    final class Beat: Sendable {
        let label: String
        let jitter: Millis
        let chance: Double
        let patch: [Patch]
        /// Whether any patch value reads `state.`; only then is the old state kept while patching.
        let patchReadsState: Bool
        /// Whether every patch value is known without evaluating (constant, or by occurrence).
        let patchIsPrecomputed: Bool
        let priority: Priority
        let alert: Alert<TextTemplate>?
        let relevance: Double?
        let staleAfter: Millis??
        let start: StartSpec?
        let end: Bool
        let dismissal: Dismissal?
        let location: SourceLocation

        init(
            label: String, jitter: Millis, chance: Double, patch: [Patch], patchReadsState: Bool,
            patchIsPrecomputed: Bool, priority: Priority,
            alert: Alert<TextTemplate>?, relevance: Double?, staleAfter: Millis??, start: StartSpec?, end: Bool,
            dismissal: Dismissal?, location: SourceLocation
        ) {
            self.label = label
            self.jitter = jitter
            self.chance = chance
            self.patch = patch
            self.patchReadsState = patchReadsState
            self.patchIsPrecomputed = patchIsPrecomputed
            self.priority = priority
            self.alert = alert
            self.relevance = relevance
            self.staleAfter = staleAfter
            self.start = start
            self.end = end
            self.dismissal = dismissal
            self.location = location
        }
    }

    /// A patch entry resolved to the index of its top-level field.
    struct Patch: Sendable {
        var field: Int
        /// Keys below the top-level field, for nested objects.
        var rest: [String]
        var value: ValueTemplate
        /// The value, when it needs no evaluation.
        var constant: StateValue?
        /// The value of each occurrence (`n` = 1, 2, …), when it depends on `n` alone: worked
        /// out once here rather than for every copy at every tick.
        var byOccurrence: [StateValue]?
    }

    /// The activity as the file describes it.
    public let spec: ActivitySpec
    /// The activity's name (kept apart from `spec` so the hot path reads it without touching the spec).
    public let name: String
    /// The activity's place in its file.
    public let index: Int
    /// The scenario's seed; each copy's seed derives from it.
    public let scenarioSeed: UInt64
    /// How much faster than real time the story plays (1 is real time); offsets are divided by it.
    public let speed: Double
    /// When the activity starts after the scenario start, divided by the speed.
    public let offset: Millis
    /// The rules the engine keeps for this activity: budget, coalescing, stale dates, the end.
    public let policy: Policy
    /// The beat that starts the activity by push, if any.
    public let startBeat: Int?
    /// `"key":` for each top-level content-state key.
    let encodedKeys: EncodedKeys
    let occurrences: [Occurrence]
    let beats: [Beat]
    /// Beat indices by id, for beats the bridge triggers.
    let beatsByID: [String: Int]

    /// Compiles `spec`, the `index`-th activity of a scenario seeded with `scenarioSeed`.
    public init(_ spec: ActivitySpec, index: Int, scenarioSeed: UInt64, speed: Double = 1) {
        self.spec = spec
        self.name = spec.name
        self.index = index
        self.scenarioSeed = scenarioSeed
        let speed = speed > 0 && speed.isFinite ? speed : 1
        self.speed = speed
        func scaled(_ millis: Millis) -> Millis {
            speed == 1 ? millis : Millis((Double(millis) / speed).rounded())
        }
        self.offset = scaled(spec.offset)
        self.policy = spec.policy
        self.startBeat = spec.startBeat
        let keys = spec.stateKeys
        self.encodedKeys = EncodedKeys(keys)

        var beats: [Beat] = []
        var byID: [String: Int] = [:]
        for (i, beat) in spec.beats.enumerated() {
            if let id = beat.id, byID[id] == nil { byID[id] = i }
            let activityEnd =
                spec.beats.first { $0.end != nil && $0.firstOffset != nil }?.firstOffset ?? spec.policy.storyLimit
            let occurrences = Int32(min(BeatSpec.maxOccurrences, beat.occurrenceCount(end: activityEnd) ?? 0))
            let patch = beat.patch.map { entry -> Patch in
                let field = keys.firstIndex(of: entry.path[0]) ?? 0
                var constant: StateValue?
                var byOccurrence: [StateValue]?
                if case .literal(let value) = entry.value {
                    constant = value
                } else if occurrences > 0, occurrences <= 10_000, entry.value.dependsOnlyOnOccurrence {
                    byOccurrence = (1...occurrences).map { n in
                        entry.value.evaluate(
                            in: EvaluationContext(
                                n: Int(n), elapsed: 0, activity: spec.name, index: 0, seed: 0, state: StateObject(),
                                input: nil),
                            beatTime: 0, startTime: 0, speed: speed
                        )
                    }
                }
                return Patch(
                    field: field, rest: Array(entry.path.dropFirst()), value: entry.value, constant: constant,
                    byOccurrence: byOccurrence)
            }
            beats.append(
                Beat(
                    label: beat.label, jitter: scaled(beat.jitter), chance: beat.chance, patch: patch,
                    patchReadsState: beat.patch.contains { $0.value.readsState },
                    patchIsPrecomputed: patch.allSatisfy { $0.constant != nil || $0.byOccurrence != nil },
                    priority: beat.priority ?? (beat.start != nil ? .high : spec.policy.priority), alert: beat.alert,
                    relevance: beat.relevance,
                    staleAfter: beat.staleAfter, start: beat.start, end: beat.end != nil,
                    dismissal: beat.end?.dismissal, location: beat.location
                ))
        }
        self.beats = beats
        self.beatsByID = byID

        // The timeline. Repeating beats without an end of their own stop at the activity's end,
        // or at the story's limit (max-duration, or a renewing story's until). At the same
        // instant a start goes first and an end last.
        let end = spec.beats.first { $0.end != nil && $0.firstOffset != nil }?.firstOffset
        var occurrences: [(occurrence: Occurrence, rank: Int)] = []
        for (i, beat) in spec.beats.enumerated() {
            let rank = beat.start != nil ? 0 : beat.end != nil ? 2 : 1
            switch beat.timing {
            case .at(let at):
                occurrences.append((Occurrence(offset: scaled(at), beat: Int32(i), n: 0), rank))
            case .every(let interval, let from, let through):
                let last = through ?? ((end ?? spec.policy.storyLimit) - 1)
                var time = from
                var n: Int32 = 1
                while time <= last, n <= BeatSpec.maxOccurrences {
                    occurrences.append((Occurrence(offset: scaled(time), beat: Int32(i), n: n), rank))
                    time += interval
                    n += 1
                }
            case .triggered:
                break
            }
        }
        occurrences.sort {
            ($0.occurrence.offset, $0.rank, $0.occurrence.beat, $0.occurrence.n)
                < ($1.occurrence.offset, $1.rank, $1.occurrence.beat, $1.occurrence.n)
        }
        self.occurrences = occurrences.map(\.occurrence)
    }

    /// The id of the beat at `index`, if it has one (the start beat the bridge triggers).
    public func beatID(at index: Int) -> String? {
        beatsByID.first { $0.value == index }?.key
    }

    /// How long the story runs, start to end (divided by the speed): the end beat's time, or
    /// the last beat's when there is no end on the timeline; nil for an empty timeline.
    public var storyLength: Millis? {
        let end = spec.beats.first { $0.end != nil && $0.firstOffset != nil }?.firstOffset
        if let end { return speed == 1 ? end : Millis((Double(end) / speed).rounded()) }
        return occurrences.last?.offset
    }

    /// How many pushes-worth of beats the timeline holds (before coalescing and heartbeats).
    public var occurrenceCount: Int { occurrences.count }
}

extension ValueTemplate {
    /// Whether evaluating it reads the current content-state.
    var readsState: Bool {
        switch self {
        case .literal, .date, .dateRange: false
        case .expression(let expression): expression.readsState
        case .text(let text): text.readsState
        case .object(let fields): fields.contains { $0.value.readsState }
        case .array(let items): items.contains(where: \.readsState)
        }
    }
}

extension ValueTemplate {
    /// Whether its value follows from the occurrence number `n` alone (no time, state, input,
    /// randomness, or copy number), so it can be worked out when the program is compiled.
    var dependsOnlyOnOccurrence: Bool {
        switch self {
        case .literal: true
        case .date, .dateRange: false
        case .expression(let expression): expression.dependsOnlyOnOccurrence
        case .text(let text):
            text.parts.allSatisfy {
                if case .expression(let expression) = $0 { return expression.dependsOnlyOnOccurrence }
                return true
            }
        case .object(let fields): fields.allSatisfy { $0.value.dependsOnlyOnOccurrence }
        case .array(let items): items.allSatisfy(\.dependsOnlyOnOccurrence)
        }
    }
}

extension Expression {
    var dependsOnlyOnOccurrence: Bool {
        switch self {
        case .number, .string: true
        case .variable(let variable): variable == .n
        case .state, .input, .attributes, .random, .pick: false
        case .negate(let operand): operand.dependsOnlyOnOccurrence
        case .binary(_, let lhs, let rhs): lhs.dependsOnlyOnOccurrence && rhs.dependsOnlyOnOccurrence
        }
    }
}

extension TextTemplate {
    var readsState: Bool {
        parts.contains {
            if case .expression(let expression) = $0 { return expression.readsState }
            return false
        }
    }
}

extension Expression {
    var readsState: Bool {
        switch self {
        case .state: true
        case .number, .string, .variable, .input, .attributes: false
        case .negate(let operand): operand.readsState
        case .binary(_, let lhs, let rhs): lhs.readsState || rhs.readsState
        case .random(let a, let b, _): a.readsState || b.readsState
        case .pick(let choices, _): choices.contains(where: \.readsState)
        }
    }
}

extension ActivitySpec {
    /// The first content-state, evaluated as if the activity started at `start`: what fixes
    /// each field's type for the app's decoder (a device view checks later states against it).
    public func firstState(start: Millis = 0, seed: UInt64 = 1) -> StateObject {
        ActivityEngine(
            program: ActivityProgram(self, index: 0, scenarioSeed: seed), id: 0, scenarioStart: start - offset
        ).initialState()
    }
}
