/// The byte form of an engine snapshot (``CompactWriter``): written with every bridge step,
/// so it is small and quick both ways. Layout version ``ActivityEngine/Snapshot/currentVersion``
/// comes first; version 2 (the same without the renewal's three fields at the end) is still
/// read, and a snapshot of any other version is refused, not guessed at.
extension ActivityEngine.Snapshot {
    /// Appends the snapshot to `writer`.
    public func write(to writer: inout CompactWriter) {
        writer.int(version)
        writer.string(activityName)
        writer.int(id)
        writer.int(copy)
        writer.int(startTime)
        writer.int(payloadLimit)
        writer.bool(followsTimeline)
        writer.string(lifecycle)
        state.write(to: &writer)
        writer.optional(relevance) { $0.double($1) }
        writer.int(pushCount)
        writer.int(beatCount)
        bucket.write(to: &writer)
        writer.optional(staleAfter) { $0.int($1) }
        writer.int(cursor)
        writer.int(nextOccurrence)
        writer.int(lastOccurrence)
        writer.int(lastTimestamp)
        writer.int(lastPush)
        writer.int(staleDeadline)
        writer.int(activeSince)
        writer.optional(pending) { $1.write(to: &$0) }
        guard version >= 3 else { return }
        writer.int(renewals)
        writer.int(storySince)
        writer.int(renewalRefusedFor)
    }

    /// Reads a snapshot ``write(to:)`` wrote. Throws ``ActivityEngine/SnapshotError/unsupportedVersion(_:)``
    /// for another layout, and ``ActivityEngine/SnapshotError/unreadable(_:)`` for bytes that
    /// are not a snapshot.
    public init(reading reader: inout CompactReader) throws(ActivityEngine.SnapshotError) {
        let version: Int
        do { version = try reader.int() } catch { throw .unreadable(error) }
        guard (Self.oldestReadableVersion...Self.currentVersion).contains(version) else {
            throw .unsupportedVersion(version)
        }
        do {
            self.init(
                version: version, activityName: try reader.string(), id: try reader.int(), copy: try reader.int(),
                startTime: try reader.int64(), payloadLimit: try reader.int(), followsTimeline: try reader.bool(),
                lifecycle: try reader.string(), state: try StateObject(reading: &reader),
                relevance: try reader.optional { r throws(CompactDecodingError) in try r.double() },
                pushCount: try reader.int(), beatCount: try reader.int(), bucket: try BudgetBucket(reading: &reader),
                staleAfter: try reader.optional { r throws(CompactDecodingError) in try r.int64() },
                cursor: try reader.int(), nextOccurrence: try reader.int64(), lastOccurrence: try reader.int64(),
                lastTimestamp: try reader.int64(), lastPush: try reader.int64(), staleDeadline: try reader.int64(),
                activeSince: try reader.int64(),
                pending: try reader.optional { r throws(CompactDecodingError) in try ActivityEngine.Pending(reading: &r)
                }
            )
            // Version 2 ends here: an activity of then was never renewed.
            if version >= 3 {
                renewals = try reader.int()
                storySince = try reader.int64()
                renewalRefusedFor = try reader.int64()
            }
        } catch {
            throw .unreadable(error)
        }
    }
}

extension ActivityEngine.Pending {
    func write(to writer: inout CompactWriter) {
        writer.bool(active)
        kind.write(to: &writer)
        writer.int(merged)
        writer.int(Int64(beat))
        writer.int(Int64(n))
        writer.int(firstAt)
        writer.int(lastAt)
        writer.int(flushAt)
        writer.bool(high)
        writer.optional(deferredSince) { $0.int($1) }
        writer.optional(alert) { $1.write(to: &$0) }
        writer.optional(start) { $1.write(to: &$0) }
        writer.bool(end)
        writer.optional(dismissal) { $1.write(to: &$0) }
        writer.optional(externalLabel) { $0.string($1) }
    }

    init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        self.init(firstAt: 0, lastAt: 0, flushAt: 0)
        active = try reader.bool()
        kind = try PushReason.Kind(reading: &reader)
        merged = try reader.int()
        beat = try reader.int32()
        n = try reader.int32()
        firstAt = try reader.int64()
        lastAt = try reader.int64()
        flushAt = try reader.int64()
        high = try reader.bool()
        deferredSince = try reader.optional { r throws(CompactDecodingError) in try r.int64() }
        alert = try reader.optional { r throws(CompactDecodingError) in try Alert<String>(reading: &r) }
        start = try reader.optional { r throws(CompactDecodingError) in try StartSpec(reading: &r) }
        end = try reader.bool()
        dismissal = try reader.optional { r throws(CompactDecodingError) in try Dismissal(reading: &r) }
        externalLabel = try reader.optional { r throws(CompactDecodingError) in try r.string() }
    }
}

extension StateValue {
    private enum Tag: UInt8 {
        case null, bool, int, double, string, date, dateRange, array, object
    }

    /// Appends the value, tagged with its kind.
    public func write(to writer: inout CompactWriter) {
        switch self {
        case .null: writer.byte(Tag.null.rawValue)
        case .bool(let value): writer.byte(Tag.bool.rawValue); writer.bool(value)
        case .int(let value): writer.byte(Tag.int.rawValue); writer.int(value)
        case .double(let value): writer.byte(Tag.double.rawValue); writer.double(value)
        case .string(let value): writer.byte(Tag.string.rawValue); writer.string(value)
        case .date(let value): writer.byte(Tag.date.rawValue); writer.int(value)
        case .dateRange(let lower, let upper): writer.byte(Tag.dateRange.rawValue); writer.int(lower); writer.int(upper)
        case .array(let values):
            writer.byte(Tag.array.rawValue)
            writer.unsigned(UInt64(values.count))
            for value in values { value.write(to: &writer) }
        case .object(let object): writer.byte(Tag.object.rawValue); object.write(to: &writer)
        }
    }

    /// Reads a value written by ``write(to:)``, refusing nesting deeper than ``CompactReader/maxDepth``.
    public init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        guard let tag = Tag(rawValue: try reader.byte()) else { throw reader.error("a value tag 0-8") }
        switch tag {
        case .null: self = .null
        case .bool: self = .bool(try reader.bool())
        case .int: self = .int(try reader.int())
        case .double: self = .double(try reader.double())
        case .string: self = .string(try reader.string())
        case .date: self = .date(try reader.int64())
        case .dateRange: self = .dateRange(try reader.int64(), try reader.int64())
        case .array:
            self = .array(
                try reader.nested { r throws(CompactDecodingError) in
                    let count = try r.count()
                    var values: [StateValue] = []
                    values.reserveCapacity(count)
                    for _ in 0..<count { values.append(try StateValue(reading: &r)) }
                    return values
                })
        case .object:
            self = .object(try reader.nested { r throws(CompactDecodingError) in try StateObject(reading: &r) })
        }
    }
}

extension StateObject {
    /// Appends the object's keys and values in their order (the payload's bytes depend on it).
    public func write(to writer: inout CompactWriter) {
        writer.unsigned(UInt64(count))
        for (key, value) in zip(keys, values) {
            writer.string(key)
            value.write(to: &writer)
        }
    }

    /// Reads an object written by ``write(to:)``, its keys in their written order.
    public init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        let count = try reader.count()
        var pairs: [(String, StateValue)] = []
        pairs.reserveCapacity(count)
        for _ in 0..<count { pairs.append((try reader.string(), try StateValue(reading: &reader))) }
        self.init(pairs)
    }
}

extension Dismissal {
    func write(to writer: inout CompactWriter) {
        switch self {
        case .default: writer.int(Int64(-1))
        case .immediate: writer.int(Int64(-2))
        case .after(let millis): writer.int(millis)
        }
    }

    init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        let millis = try reader.int64()
        self = millis == -1 ? .default : millis == -2 ? .immediate : .after(millis)
    }
}

extension StartSpec {
    func write(to writer: inout CompactWriter) {
        switch self {
        case .plain: writer.byte(0)
        case .inputPushToken: writer.byte(1)
        case .inputPushChannel(let channel): writer.byte(2); writer.string(channel)
        }
    }

    init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        switch try reader.byte() {
        case 0: self = .plain
        case 1: self = .inputPushToken
        case 2: self = .inputPushChannel(try reader.string())
        default: throw reader.error("a start kind 0-2")
        }
    }
}

extension Alert<String> {
    func write(to writer: inout CompactWriter) {
        writer.optional(title) { $1.write(to: &$0) }
        writer.optional(body) { $1.write(to: &$0) }
        writer.optional(sound) { $0.string($1) }
    }

    init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        self.init(
            title: try reader.optional { r throws(CompactDecodingError) in try Text(reading: &r) },
            body: try reader.optional { r throws(CompactDecodingError) in try Text(reading: &r) },
            sound: try reader.optional { r throws(CompactDecodingError) in try r.string() }
        )
    }
}

extension Alert<String>.Text {
    func write(to writer: inout CompactWriter) {
        switch self {
        case .plain(let text):
            writer.byte(0)
            writer.string(text)
        case .localized(let key, let args):
            writer.byte(1)
            writer.string(key)
            writer.unsigned(UInt64(args.count))
            for arg in args { writer.string(arg) }
        }
    }

    init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        switch try reader.byte() {
        case 0: self = .plain(try reader.string())
        case 1:
            let key = try reader.string()
            let count = try reader.count()
            var args: [String] = []
            args.reserveCapacity(count)
            for _ in 0..<count { args.append(try reader.string()) }
            self = .localized(key: key, args: args)
        default: throw reader.error("an alert text kind 0-1")
        }
    }
}

extension PushReason.Kind {
    func write(to writer: inout CompactWriter) {
        let code: UInt8 =
            switch self {
            case .beat: 0
            case .event: 1
            case .heartbeat: 2
            case .reachedMaxDuration: 3
            case .stopped: 4
            case .renewalStart: 5
            case .renewalEnd: 6
            case .reachedStoryLimit: 7
            }
        writer.byte(code)
    }

    init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        switch try reader.byte() {
        case 0: self = .beat
        case 1: self = .event
        case 2: self = .heartbeat
        case 3: self = .reachedMaxDuration
        case 4: self = .stopped
        case 5: self = .renewalStart
        case 6: self = .renewalEnd
        case 7: self = .reachedStoryLimit
        default: throw reader.error("a push kind 0-7")
        }
    }
}
