import Liveline

/// What the dispatcher keeps of an activity between steps, stored as the activity's engine
/// state: the engine's snapshot, the story it follows, the newest order key applied, so a
/// late event is recognised as older after a restart too, and per content-state field the
/// order key of the newest event that set it, so a late event's fields that no newer event
/// set still apply (`EventApplication`).
///
/// It is written with every step of every activity, so it is stored in the compact byte form
/// (`CompactWriter`) behind a magic number and a layout version, not as JSON: reading and
/// writing it costs microseconds, not a general-purpose coder's walk.
struct BridgeActivityState: Sendable, Hashable {
    /// `LLA` and the layout version; bumped when the layout changes. Layout 2 added
    /// ``fieldOrderKeys``, layout 3 ``android``; an older Liveline's state is read without them.
    static let header: [UInt8] = [0x4C, 0x4C, 0x41, 3]

    /// The source whose scenario the activity plays.
    var source: String
    var engine: ActivityEngine.Snapshot
    /// The order key of the newest event applied, per source (order keys of different senders
    /// do not compare).
    var lastOrderKeys: [String: Int64] = [:]
    /// The newest applied event per source, to name it when a late one is superseded.
    var lastEventIDs: [String: String] = [:]
    /// Per source, per content-state field path (dotted: `courier.name`), the order key of the
    /// newest applied event that set it, by its own rule or by the beat it triggered.
    var fieldOrderKeys: [String: [String: Int64]] = [:]
    /// What the key's Android phones were last sent, for a story with an `android:` block: the
    /// next step's messages are `HIGH` only when they change what those phones show.
    var android: AndroidMemory?

    /// Marks that an event of `source` with `orderKey` set the fields at `paths`.
    mutating func markFieldsSet(_ paths: some Sequence<String>, source: String, orderKey: Int64) {
        var keys = fieldOrderKeys[source] ?? [:]
        for path in paths { keys[path] = max(keys[path] ?? .min, orderKey) }
        fieldOrderKeys[source] = keys
    }

    /// The newest event of `source` that set `path`, a field inside it or a field it is in,
    /// when its order key is above `orderKey`: a late event at `orderKey` must not overwrite it.
    func newerSetter(of path: String, source: String, than orderKey: Int64) -> Int64? {
        var newest: Int64?
        for (setPath, key) in fieldOrderKeys[source] ?? [:] where key > orderKey {
            guard setPath == path || path.hasPrefix(setPath + ".") || setPath.hasPrefix(path + ".") else { continue }
            newest = max(newest ?? .min, key)
        }
        return newest
    }

    func encoded() -> [UInt8] {
        var writer = CompactWriter(capacity: 512)
        writer.raw(Self.header)
        writer.string(source)
        engine.write(to: &writer)
        writer.unsigned(UInt64(lastOrderKeys.count))
        for (source, key) in lastOrderKeys.sorted(by: { $0.key < $1.key }) {
            writer.string(source)
            writer.int(key)
        }
        writer.unsigned(UInt64(lastEventIDs.count))
        for (source, id) in lastEventIDs.sorted(by: { $0.key < $1.key }) {
            writer.string(source)
            writer.string(id)
        }
        writer.unsigned(UInt64(fieldOrderKeys.count))
        for (source, fields) in fieldOrderKeys.sorted(by: { $0.key < $1.key }) {
            writer.string(source)
            writer.unsigned(UInt64(fields.count))
            for (path, key) in fields.sorted(by: { $0.key < $1.key }) {
                writer.string(path)
                writer.int(key)
            }
        }
        writer.optional(android) { writer, memory in memory.write(to: &writer) }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(BridgeStateError) -> BridgeActivityState {
        var reader = CompactReader(bytes)
        let layout: UInt8
        do {
            try reader.expect(Array(header.prefix(3)), "the activity state header (LLA)")
            layout = try reader.byte()
        } catch {
            throw BridgeStateError(message: "activity state was written by another Liveline version (\(error))")
        }
        guard (1...header[3]).contains(layout) else {
            throw BridgeStateError(
                message:
                    "activity state was written by another Liveline version (layout \(layout); this one reads 1 to \(header[3]))"
            )
        }
        do {
            let source = try reader.string()
            let engine: ActivityEngine.Snapshot
            do {
                engine = try ActivityEngine.Snapshot(reading: &reader)
            } catch {
                throw BridgeStateError(message: "\(error)")
            }
            var state = BridgeActivityState(source: source, engine: engine)
            for _ in 0..<(try reader.count()) {
                state.lastOrderKeys[try reader.string()] = try reader.int64()
            }
            for _ in 0..<(try reader.count()) {
                state.lastEventIDs[try reader.string()] = try reader.string()
            }
            if layout >= 2 {
                for _ in 0..<(try reader.count()) {
                    let source = try reader.string()
                    var fields: [String: Int64] = [:]
                    for _ in 0..<(try reader.count()) { fields[try reader.string()] = try reader.int64() }
                    state.fieldOrderKeys[source] = fields
                }
            }
            if layout >= 3 {
                state.android = try reader.optional { (reader) throws(CompactDecodingError) in
                    try AndroidMemory(reading: &reader)
                }
            }
            guard reader.isAtEnd else { throw reader.error("the end of the activity state") }
            return state
        } catch let error as BridgeStateError {
            throw error
        } catch {
            throw BridgeStateError(message: "activity state is unreadable: \(error)")
        }
    }
}

/// A stored activity state that cannot be read back.
struct BridgeStateError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
