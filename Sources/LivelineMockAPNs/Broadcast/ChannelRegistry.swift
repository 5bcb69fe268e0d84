import Liveline

/// A broadcast channel, as the channel-management API reports it.
public struct BroadcastChannel: Sendable, Hashable, Codable {
    /// The base64 channel id (`apns-channel-id`).
    public var id: String
    /// The app it belongs to; nil for channels made with `--subscribe`, which serve any app.
    public var bundleID: String?
    /// 0: no message stored, higher budget. 1: the latest message is kept for 8 hours.
    public var messageStoragePolicy: Int
    public var pushType: String
    /// UNIX milliseconds.
    public var createdAt: Millis

    enum CodingKeys: String, CodingKey {
        case id
        case bundleID = "bundle-id"
        case messageStoragePolicy = "message-storage-policy"
        case pushType = "push-type"
        case createdAt = "created-at"
    }
}

/// The channels, their subscribers and stored messages (docs/apns.md §6).
///
/// A value owned by ``MockAPNsState`` and mutated under its lock.
struct ChannelRegistry {
    /// Apple's limit of channels per app and environment.
    static let maxChannelsPerApp = 10_000
    /// How long a policy-1 channel keeps its latest message.
    static let storedMessageLifetime: Millis = 8 * 3_600_000

    /// The latest broadcast of a policy-1 channel.
    struct StoredMessage {
        var payload: JSONValue
        var priority: Int
        var receivedAt: Millis
    }

    private(set) var channels: [String: BroadcastChannel] = [:]
    private var order: [String] = []
    /// Channel id → ids of the activities that follow it.
    private(set) var subscribers: [String: [String]] = [:]
    private var stored: [String: StoredMessage] = [:]

    /// Creates a channel for `bundleID`; nil when the app has reached the limit.
    mutating func create(bundleID: String, policy: Int, now: Millis) -> BroadcastChannel? {
        guard channels.values.count(where: { $0.bundleID == bundleID }) < Self.maxChannelsPerApp else { return nil }
        var random = SystemRandomNumberGenerator()
        var id: String
        repeat {
            id = Base64.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })
        } while channels[id] != nil
        let channel = BroadcastChannel(
            id: id, bundleID: bundleID, messageStoragePolicy: policy, pushType: "LiveActivity", createdAt: now)
        channels[id] = channel
        order.append(id)
        return channel
    }

    /// Makes sure a channel exists, for `--subscribe` and `input-push-channel`; it serves any app.
    mutating func ensure(id: String, now: Millis) {
        guard channels[id] == nil else { return }
        channels[id] = BroadcastChannel(
            id: id, bundleID: nil, messageStoragePolicy: 0, pushType: "LiveActivity", createdAt: now)
        order.append(id)
    }

    /// The channel `id`, if it exists and serves `bundleID`.
    func channel(_ id: String, bundleID: String) -> BroadcastChannel? {
        guard let channel = channels[id], channel.bundleID == nil || channel.bundleID == bundleID else { return nil }
        return channel
    }

    /// Deletes a channel; false when there was none for that app.
    mutating func delete(_ id: String, bundleID: String) -> Bool {
        guard channel(id, bundleID: bundleID) != nil else { return false }
        channels[id] = nil
        order.removeAll { $0 == id }
        subscribers[id] = nil
        stored[id] = nil
        return true
    }

    /// The ids of the channels serving `bundleID`, oldest first.
    func list(bundleID: String) -> [String] {
        order.filter { channels[$0].map { $0.bundleID == nil || $0.bundleID == bundleID } ?? false }
    }

    /// Every channel, oldest first.
    var all: [BroadcastChannel] { order.compactMap { channels[$0] } }

    mutating func subscribe(activityID: String, to channelID: String) {
        if subscribers[channelID, default: []].contains(activityID) { return }
        subscribers[channelID, default: []].append(activityID)
    }

    /// Keeps `payload` as the channel's latest message when its policy stores messages.
    mutating func store(_ payload: JSONValue, priority: Int, on channelID: String, now: Millis) {
        guard channels[channelID]?.messageStoragePolicy == 1 else { return }
        stored[channelID] = StoredMessage(payload: payload, priority: priority, receivedAt: now)
    }

    /// The stored message a new subscriber receives, if one is still kept.
    func storedMessage(on channelID: String, now: Millis) -> StoredMessage? {
        guard let message = stored[channelID], now - message.receivedAt < Self.storedMessageLifetime else { return nil }
        return message
    }

    mutating func removeAll() {
        self = ChannelRegistry()
    }
}
