import Liveline

/// What the dispatcher keeps of an activity between steps, stored as the activity's engine
/// state: the engine's snapshot, the story it follows, and the newest order key applied, so a
/// late event is recognised as older after a restart too.
///
/// It is written with every step of every activity, so it is stored in the compact byte form
/// (``CompactWriter``) behind a magic number and a layout version, not as JSON: reading and
/// writing it costs microseconds, not a general-purpose coder's walk.
struct BridgeActivityState: Sendable, Hashable {
    /// `LLA` and the layout version; bumped when the layout changes.
    static let header: [UInt8] = [0x4C, 0x4C, 0x41, 1]

    /// The source whose scenario the activity plays.
    var source: String
    var engine: ActivityEngine.Snapshot
    /// The order key of the newest event applied, per source (order keys of different senders
    /// do not compare).
    var lastOrderKeys: [String: Int64] = [:]
    /// The newest applied event per source, to name it when a late one is superseded.
    var lastEventIDs: [String: String] = [:]

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
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(BridgeStateError) -> BridgeActivityState {
        var reader = CompactReader(bytes)
        do {
            try reader.expect(header, "the activity state header of this Liveline version (LLA, layout \(header[3]))")
        } catch {
            throw BridgeStateError(message: "activity state was written by another Liveline version (\(error))")
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
