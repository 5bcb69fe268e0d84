/// One beat of an activity's story, as written in the file.
///
/// A beat happens once (``Timing/at(_:)``), repeatedly (``Timing/every(_:from:through:)``), or
/// only when the bridge triggers it by id (``Timing/triggered``). What it does is the union of its
/// parts: a state patch, a relevance change, an alert, a stale-after override, a start or an end.
public struct BeatSpec: Sendable {
    /// When a beat happens, relative to the activity's start.
    public enum Timing: Sendable, Hashable {
        /// Once, this long after the activity starts.
        case at(Millis)
        /// Every `interval` from `from` through `through` (inclusive; nil: until the end), offsets after the activity start.
        case every(Millis, from: Millis, through: Millis?)
        /// Never on the timeline; the bridge triggers it by id.
        case triggered
    }

    /// Names the beat in plans; the bridge triggers beats by id.
    public var id: String?
    /// When the beat happens: once, repeatedly, or only when triggered.
    public var timing: Timing
    /// Each occurrence moves by a seeded amount within ±jitter.
    public var jitter: Millis = 0
    /// The seeded probability that an occurrence happens.
    public var chance: Double = 1
    /// The content-state patch.
    public var patch: [PatchEntry] = []
    /// The priority hint; nil takes the policy's.
    public var priority: Priority?
    /// An alert shown with the update (`title` and `body`, with templates), or nil for a silent one.
    public var alert: Alert<TextTemplate>?
    /// The new `relevance-score`, which orders several activities of one app; nil keeps the last.
    public var relevance: Double?
    /// `.some(nil)` is `stale-after: none`.
    public var staleAfter: Millis??
    /// Set when the beat starts the activity with a push-to-start.
    public var start: StartSpec?
    /// Set when the beat ends the activity.
    public var end: EndSpec?
    /// Where the beat is declared.
    public var location: SourceLocation

    /// The most occurrences a repeating beat may have. The loader refuses a beat that would
    /// repeat more often (every 10ms for 8 hours is 2,880,000), so the engine never stops one early.
    public static let maxOccurrences = 1_000_000

    /// How many times a repeating beat happens when the activity ends at `end` (nil for others).
    public func occurrenceCount(end: Millis) -> Int? {
        guard case .every(let interval, let from, let through) = timing else { return nil }
        let last = through ?? (end - 1)
        return last >= from ? Int((last - from) / max(1, interval) + 1) : 0
    }

    /// A label for plans: the id, or where the beat is written.
    public var label: String { id ?? "line \(location.line)" }

    /// A beat with only its identity and timing; the reader fills in the parts the file gives.
    public init(id: String?, timing: Timing, location: SourceLocation) {
        self.id = id
        self.timing = timing
        self.location = location
    }
}

/// One field assignment of a patch. Nested mappings in `set:` become paths.
public struct PatchEntry: Sendable {
    /// The keys from the top of the content-state down to the field.
    public var path: [String]
    /// The value to set, evaluated when the beat plays.
    public var value: ValueTemplate
    /// Where the assignment is written, for diagnostics.
    public var location: SourceLocation

    /// An assignment of `value` at `path`, written at `location`.
    public init(path: [String], value: ValueTemplate, location: SourceLocation) {
        self.path = path
        self.value = value
        self.location = location
    }
}

/// A push-to-start, with what the started activity should do next.
public enum StartSpec: Sendable, Hashable {
    /// Plain start: the app must report an update token another way.
    case plain
    /// `input-push-token: 1`: the started activity gets an update token (iOS 18).
    case inputPushToken
    /// `input-push-channel`: the started activity subscribes to this broadcast channel (iOS 18).
    case inputPushChannel(String)
}

/// The end of an activity, with its dismissal (nil takes the policy's).
public struct EndSpec: Sendable, Hashable {
    /// When the ended activity leaves the Lock Screen; nil takes the policy's.
    public var dismissal: Dismissal?

    /// An end with `dismissal`, or the policy's when nil.
    public init(dismissal: Dismissal?) { self.dismissal = dismissal }
}
