import Foundation
import Liveline

/// What the dispatcher keeps of an activity between steps, stored as the activity's engine
/// state: the engine's snapshot, the story it follows, and the newest order key applied, so a
/// late event is recognised as older after a restart too.
struct BridgeActivityState: Codable, Sendable {
    static let currentVersion = 1

    var version = Self.currentVersion
    /// The source whose scenario the activity plays.
    var source: String
    var engine: ActivityEngine.Snapshot
    /// The order key of the newest event applied, per source (order keys of different senders
    /// do not compare).
    var lastOrderKeys: [String: Int64] = [:]
    /// The newest applied event per source, to name it when a late one is superseded.
    var lastEventIDs: [String: String] = [:]

    func encoded() throws -> [UInt8] {
        Array(try JSONEncoder().encode(self))
    }

    static func decode(_ bytes: [UInt8]) throws -> BridgeActivityState {
        let state = try JSONDecoder().decode(BridgeActivityState.self, from: Data(bytes))
        guard state.version == currentVersion else {
            throw BridgeStateError(message: "activity state version \(state.version) is not \(currentVersion)")
        }
        return state
    }
}

/// A stored activity state that cannot be read back.
struct BridgeStateError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
