/// The HTTP/2 headers of a Live Activity push, apart from `authorization` and the path.
///
/// `apns-push-type` is always `liveactivity`; `apns-topic` is the bundle id with
/// `.push-type.liveactivity` (``LiveActivityTopic``; a broadcast has no topic); `apns-priority` is 10 or 5; and
/// `apns-expiration` is UNIX seconds, or 0 for "deliver now or drop". `apns-collapse-id` is
/// never sent: it is undocumented for Live Activities.
public struct PushHeaders: Sendable, Hashable {
    /// The `apns-topic`; nil for a broadcast, which has none.
    public var topic: String?
    /// The `apns-priority`.
    public var priority: Priority
    /// The `apns-expiration`: UNIX seconds, or 0.
    public var expiration: Int64

    /// Headers with every part given.
    public init(topic: String?, priority: Priority, expiration: Int64) {
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
    }

    /// The headers of `push` to a device token.
    public init(_ push: Push, topic: String) {
        self.init(topic: topic, priority: push.priority, expiration: push.expiration)
    }

    /// Name and value pairs, in the order Apple's guide writes them.
    public var fields: [(name: String, value: String)] {
        var fields: [(String, String)] = []
        if let topic { fields.append(("apns-topic", topic)) }
        fields.append(("apns-push-type", "liveactivity"))
        fields.append(("apns-priority", String(priority.apnsValue)))
        fields.append(("apns-expiration", String(expiration)))
        return fields
    }
}
