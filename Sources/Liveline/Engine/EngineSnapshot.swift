/// An engine's state as bytes can hold it, so a process that stops can resume an activity
/// exactly where it was: same content-state, same budget, same pending push, same deadlines.
///
/// The bridge stores one per activity with each dispatch step; a restart rebuilds the engine
/// from it and the activity's program (which is compiled from the scenario again, not stored).
/// A snapshot records everything that changes while the activity plays, and nothing the
/// program already says.
extension ActivityEngine {
    public struct Snapshot: Sendable, Hashable, Codable {
        /// Bumped when the layout changes; an older or newer snapshot is refused, not guessed at.
        public static let currentVersion = 1

        var version: Int
        var activityName: String
        var id: Int
        var copy: Int
        var startTime: Millis
        var payloadLimit: Int
        var followsTimeline: Bool
        var lifecycle: String
        var state: StateObject
        var relevance: Double?
        var pushCount: Int
        var beatCount: Int
        var bucket: BudgetBucket
        var staleAfter: Millis?
        var cursor: Int
        var nextOccurrence: Millis
        var lastOccurrence: Millis
        var lastTimestamp: Int64
        var lastPush: Millis
        var staleDeadline: Millis
        var activeSince: Millis
        var pending: Pending?
    }

    /// Why a snapshot cannot become an engine.
    public enum SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
        case unsupportedVersion(Int)
        /// The snapshot was taken of another activity than the program's.
        case otherActivity(snapshot: String, program: String)
        case unknownLifecycle(String)

        public var description: String {
            switch self {
            case .unsupportedVersion(let version):
                "engine snapshot version \(version) is not \(Snapshot.currentVersion): written by another Liveline version"
            case .otherActivity(let snapshot, let program):
                "the engine snapshot is of activity '\(snapshot)', not '\(program)': the scenario changed under a running activity"
            case .unknownLifecycle(let text):
                "engine snapshot lifecycle '\(text)' is not pending, active or ended"
            }
        }
    }

    /// Everything that changes while the activity plays.
    public var snapshot: Snapshot {
        Snapshot(
            version: Snapshot.currentVersion, activityName: program.name, id: id, copy: copy, startTime: startTime,
            payloadLimit: payloadLimit, followsTimeline: followsTimeline, lifecycle: lifecycle.rawValue, state: state,
            relevance: relevance, pushCount: pushCount, beatCount: beatCount, bucket: bucket, staleAfter: staleAfter,
            cursor: cursor, nextOccurrence: nextOccurrence, lastOccurrence: lastOccurrence, lastTimestamp: lastTimestamp,
            lastPush: lastPush, staleDeadline: staleDeadline, activeSince: activeSince, pending: pending.active ? pending : nil
        )
    }

    /// The engine `snapshot` was taken of, playing `program` again.
    public init(program: ActivityProgram, snapshot: Snapshot) throws(SnapshotError) {
        guard snapshot.version == Snapshot.currentVersion else { throw .unsupportedVersion(snapshot.version) }
        guard snapshot.activityName == program.name else {
            throw .otherActivity(snapshot: snapshot.activityName, program: program.name)
        }
        guard let lifecycle = Lifecycle(rawValue: snapshot.lifecycle) else { throw .unknownLifecycle(snapshot.lifecycle) }
        self.init(
            program: program, id: snapshot.id, copy: snapshot.copy, scenarioStart: snapshot.startTime - program.offset,
            payloadLimit: snapshot.payloadLimit, followsTimeline: snapshot.followsTimeline
        )
        self.lifecycle = lifecycle
        state = snapshot.state
        relevance = snapshot.relevance
        pushCount = snapshot.pushCount
        beatCount = snapshot.beatCount
        bucket = snapshot.bucket
        staleAfter = snapshot.staleAfter
        cursor = min(snapshot.cursor, program.occurrences.count)
        nextOccurrence = snapshot.nextOccurrence
        lastOccurrence = snapshot.lastOccurrence
        lastTimestamp = snapshot.lastTimestamp
        lastPush = snapshot.lastPush
        staleDeadline = snapshot.staleDeadline
        activeSince = snapshot.activeSince
        pending = snapshot.pending ?? Pending(firstAt: 0, lastAt: 0, flushAt: .max)
    }
}

// MARK: Coding the values a snapshot holds
//
// Compact, tagged forms: a snapshot is written with every dispatch step, so it stays small.

extension StateValue: Codable {
    private enum Tag: String, Codable {
        case null = "n", bool = "b", int = "i", double = "d", string = "s", date = "t", dateRange = "r", array = "a", object = "o"
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        switch try container.decode(Tag.self) {
        case .null: self = .null
        case .bool: self = .bool(try container.decode(Bool.self))
        case .int: self = .int(try container.decode(Int.self))
        case .double: self = .double(try container.decode(Double.self))
        case .string: self = .string(try container.decode(String.self))
        case .date: self = .date(try container.decode(Millis.self))
        case .dateRange: self = .dateRange(try container.decode(Millis.self), try container.decode(Millis.self))
        case .array: self = .array(try container.decode([StateValue].self))
        case .object: self = .object(try container.decode(StateObject.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        switch self {
        case .null: try container.encode(Tag.null)
        case .bool(let value): try container.encode(Tag.bool); try container.encode(value)
        case .int(let value): try container.encode(Tag.int); try container.encode(value)
        case .double(let value): try container.encode(Tag.double); try container.encode(value)
        case .string(let value): try container.encode(Tag.string); try container.encode(value)
        case .date(let value): try container.encode(Tag.date); try container.encode(value)
        case .dateRange(let lower, let upper): try container.encode(Tag.dateRange); try container.encode(lower); try container.encode(upper)
        case .array(let values): try container.encode(Tag.array); try container.encode(values)
        case .object(let object): try container.encode(Tag.object); try container.encode(object)
        }
    }
}

extension StateObject: Codable {
    /// Keys and values alternate, so the order of the keys (and of the payload's bytes) survives.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var pairs: [(String, StateValue)] = []
        while !container.isAtEnd {
            pairs.append((try container.decode(String.self), try container.decode(StateValue.self)))
        }
        self.init(pairs)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for (key, value) in zip(keys, values) {
            try container.encode(key)
            try container.encode(value)
        }
    }
}

extension Dismissal: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let millis = try container.decode(Millis.self)
        self = millis == -1 ? .default : millis == -2 ? .immediate : .after(millis)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .default: try container.encode(Millis(-1))
        case .immediate: try container.encode(Millis(-2))
        case .after(let millis): try container.encode(millis)
        }
    }
}

extension StartSpec: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        switch text {
        case "plain": self = .plain
        case "input-push-token": self = .inputPushToken
        default:
            guard text.hasPrefix("channel:") else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown start '\(text)'")
            }
            self = .inputPushChannel(String(text.dropFirst("channel:".count)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .plain: try container.encode("plain")
        case .inputPushToken: try container.encode("input-push-token")
        case .inputPushChannel(let channel): try container.encode("channel:" + channel)
        }
    }
}

extension ResolvedAlert: Codable {
    private enum Keys: String, CodingKey { case title, body, sound }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            title: try container.decodeIfPresent(Text.self, forKey: .title),
            body: try container.decodeIfPresent(Text.self, forKey: .body),
            sound: try container.decodeIfPresent(String.self, forKey: .sound)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(body, forKey: .body)
        try container.encodeIfPresent(sound, forKey: .sound)
    }
}

extension ResolvedAlert.Text: Codable {
    /// A plain text is a string; a localized one is `[key, args…]`.
    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self = .plain(text)
            return
        }
        var container = try decoder.unkeyedContainer()
        let key = try container.decode(String.self)
        var args: [String] = []
        while !container.isAtEnd { args.append(try container.decode(String.self)) }
        self = .localized(key: key, args: args)
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .plain(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .localized(let key, let args):
            var container = encoder.unkeyedContainer()
            try container.encode(key)
            for arg in args { try container.encode(arg) }
        }
    }
}

extension PushReason.Kind: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        switch try container.decode(String.self) {
        case "beat": self = .beat
        case "event": self = .event
        case "heartbeat": self = .heartbeat
        case "max-duration": self = .reachedMaxDuration
        case "stopped": self = .stopped
        case let other: throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown push kind '\(other)'")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .beat: try container.encode("beat")
        case .event: try container.encode("event")
        case .heartbeat: try container.encode("heartbeat")
        case .reachedMaxDuration: try container.encode("max-duration")
        case .stopped: try container.encode("stopped")
        }
    }
}
