/// One activity's story, compiled for playing, and shared by every copy that plays it.
///
/// Compiling expands repeating beats into a sorted list of occurrences, resolves each patch to a
/// field index, pre-evaluates constant values and pre-encodes the content-state keys. A load test
/// of 100,000 copies holds one program; each ``ActivityEngine`` holds only its own state and a
/// cursor into ``occurrences``.
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

    /// A beat, ready to apply.
    struct Beat: Sendable {
        var label: String
        var jitter: Millis
        var chance: Double
        var patch: [Patch]
        /// Whether any patch value reads `state.`; only then is the old state kept while patching.
        var patchReadsState: Bool
        var priority: Priority
        var alert: AlertSpec?
        var relevance: Double?
        var staleAfter: Millis??
        var start: StartSpec?
        var end: Bool
        var dismissal: Dismissal?
        var location: SourceLocation
    }

    /// A patch entry resolved to the index of its top-level field.
    struct Patch: Sendable {
        var field: Int
        /// Keys below the top-level field, for nested objects.
        var rest: [String]
        var value: ValueTemplate
        /// The value, when it needs no evaluation.
        var constant: StateValue?
    }

    public let spec: ActivitySpec
    /// The activity's place in its file.
    public let index: Int
    /// The scenario's seed; each copy's seed derives from it.
    public let scenarioSeed: UInt64
    public let speed: Double
    /// When the activity starts after the scenario start, divided by the speed.
    public let offset: Millis
    public var policy: Policy { spec.policy }
    /// The beat that starts the activity by push, if any.
    public let startBeat: Int?
    /// `"key":` for each top-level content-state key.
    let encodedKeys: [[UInt8]]
    let occurrences: [Occurrence]
    let beats: [Beat]
    /// Beat indices by id, for beats the bridge triggers.
    let beatsByID: [String: Int]

    /// Compiles `spec`, the `index`-th activity of a scenario seeded with `scenarioSeed`.
    public init(_ spec: ActivitySpec, index: Int, scenarioSeed: UInt64, speed: Double = 1) {
        self.spec = spec
        self.index = index
        self.scenarioSeed = scenarioSeed
        let speed = speed > 0 && speed.isFinite ? speed : 1
        self.speed = speed
        func scaled(_ millis: Millis) -> Millis {
            speed == 1 ? millis : Millis((Double(millis) / speed).rounded())
        }
        self.offset = scaled(spec.offset)
        self.startBeat = spec.startBeat
        let keys = spec.stateKeys
        self.encodedKeys = keys.map(JSONWriter.encodedKey)

        var beats: [Beat] = []
        var byID: [String: Int] = [:]
        for (i, beat) in spec.beats.enumerated() {
            if let id = beat.id, byID[id] == nil { byID[id] = i }
            let patch = beat.patch.map { entry -> Patch in
                let field = keys.firstIndex(of: entry.path[0]) ?? 0
                var constant: StateValue?
                if case .literal(let value) = entry.value { constant = value }
                return Patch(field: field, rest: Array(entry.path.dropFirst()), value: entry.value, constant: constant)
            }
            beats.append(Beat(
                label: beat.label, jitter: scaled(beat.jitter), chance: beat.chance, patch: patch,
                patchReadsState: beat.patch.contains { $0.value.readsState },
                priority: beat.priority ?? (beat.start != nil ? .high : spec.policy.priority), alert: beat.alert, relevance: beat.relevance,
                staleAfter: beat.staleAfter, start: beat.start, end: beat.end != nil,
                dismissal: beat.end?.dismissal, location: beat.location
            ))
        }
        self.beats = beats
        self.beatsByID = byID

        // The timeline. Repeating beats without an end of their own stop at the activity's end,
        // or at max-duration. At the same instant a start goes first and an end last.
        let end = spec.beats.first { $0.end != nil && $0.firstOffset != nil }?.firstOffset
        var occurrences: [(occurrence: Occurrence, rank: Int)] = []
        for (i, beat) in spec.beats.enumerated() {
            let rank = beat.start != nil ? 0 : beat.end != nil ? 2 : 1
            switch beat.timing {
            case .at(let at):
                occurrences.append((Occurrence(offset: scaled(at), beat: Int32(i), n: 0), rank))
            case .every(let interval, let from, let through):
                let last = through ?? ((end ?? spec.policy.maxDuration) - 1)
                var time = from
                var n: Int32 = 1
                while time <= last, n < 1_000_000 {
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
        case .number, .string, .variable, .input: false
        case .negate(let operand): operand.readsState
        case .binary(_, let lhs, let rhs): lhs.readsState || rhs.readsState
        case .random(let a, let b, _): a.readsState || b.readsState
        case .pick(let choices, _): choices.contains(where: \.readsState)
        }
    }
}
