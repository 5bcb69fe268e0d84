/// An engine's state as bytes can hold it, so a process that stops can resume an activity
/// exactly where it was: same content-state, same budget, same pending push, same deadlines.
///
/// The bridge stores one per activity with each dispatch step; a restart rebuilds the engine
/// from it and the activity's program (which is compiled from the scenario again, not stored).
/// A snapshot records everything that changes while the activity plays, and nothing the
/// program already says.
extension ActivityEngine {
    /// What ``ActivityEngine/snapshot`` saves, in the byte form ``write(to:)`` writes and
    /// ``init(reading:)`` reads.
    public struct Snapshot: Sendable, Hashable {
        /// Bumped when the layout changes; a newer snapshot is refused, not guessed at. Its byte
        /// form is in `EngineSnapshot+Compact.swift`.
        public static let currentVersion = 3
        /// The oldest layout still read: version 2 is version 3 without the renewal's fields, so
        /// an activity stored before renewals existed resumes as one never renewed.
        public static let oldestReadableVersion = 2

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
        var renewals = 0
        var storySince: Millis = .max
        var renewalRefusedFor: Millis = .max
    }

    /// Why a snapshot cannot become an engine.
    public enum SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Written by a layout this version does not read (newer than ``Snapshot/currentVersion``,
        /// or older than ``Snapshot/oldestReadableVersion``).
        case unsupportedVersion(Int)
        /// The snapshot was taken of another activity than the program's.
        case otherActivity(snapshot: String, program: String)
        /// The lifecycle is none this version knows.
        case unknownLifecycle(String)
        /// The bytes are not a snapshot: truncated or corrupt.
        case unreadable(CompactDecodingError)

        public var description: String {
            switch self {
            case .unsupportedVersion(let version):
                "engine snapshot version \(version) is not one of \(Snapshot.oldestReadableVersion)-\(Snapshot.currentVersion): written by another Liveline version"
            case .otherActivity(let snapshot, let program):
                "the engine snapshot is of activity '\(snapshot)', not '\(program)': the scenario changed under a running activity"
            case .unknownLifecycle(let text):
                "engine snapshot lifecycle '\(text)' is not pending, active or ended"
            case .unreadable(let error):
                "the engine snapshot is unreadable (\(error))"
            }
        }
    }

    /// Everything that changes while the activity plays.
    public var snapshot: Snapshot {
        Snapshot(
            version: Snapshot.currentVersion, activityName: program.name, id: id, copy: copy, startTime: startTime,
            payloadLimit: payloadLimit, followsTimeline: followsTimeline, lifecycle: lifecycle.rawValue, state: state,
            relevance: relevance, pushCount: pushCount, beatCount: beatCount, bucket: bucket, staleAfter: staleAfter,
            cursor: cursor, nextOccurrence: nextOccurrence, lastOccurrence: lastOccurrence,
            lastTimestamp: lastTimestamp,
            lastPush: lastPush, staleDeadline: staleDeadline, activeSince: activeSince,
            pending: pending.active ? pending : nil, renewals: renewals, storySince: storySince,
            renewalRefusedFor: renewalRefusedFor
        )
    }

    /// The engine `snapshot` was taken of, playing `program` again.
    public init(program: ActivityProgram, snapshot: Snapshot) throws(SnapshotError) {
        guard (Snapshot.oldestReadableVersion...Snapshot.currentVersion).contains(snapshot.version) else {
            throw .unsupportedVersion(snapshot.version)
        }
        guard snapshot.activityName == program.name else {
            throw .otherActivity(snapshot: snapshot.activityName, program: program.name)
        }
        guard let lifecycle = Lifecycle(rawValue: snapshot.lifecycle) else {
            throw .unknownLifecycle(snapshot.lifecycle)
        }
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
        renewals = snapshot.renewals
        storySince = snapshot.storySince
        renewalRefusedFor = snapshot.renewalRefusedFor
    }
}
