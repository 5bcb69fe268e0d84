import Liveline

/// One push as the mock answered it and what the device(s) did with it.
///
/// The same value feeds the per-token history (`GET /activities/{token}/pushes`) and the live
/// stream of ``MockAPNsServer/events(bufferingNewest:)``.
public struct AnsweredPush: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case device, broadcast
    }

    /// When the mock answered, UNIX milliseconds on the mock's clock.
    public var time: Millis
    public var kind: Kind
    /// The device token pushed to (device pushes).
    public var token: String?
    /// The channel pushed to (broadcasts).
    public var channelID: String?
    /// `apns-id` (device pushes) or `apns-request-id` (broadcasts) of the response.
    public var id: String
    public var priority: Int
    public var status: Int
    /// The error reason, for statuses other than 200.
    public var reason: String?
    /// What each reached activity did; empty when APNs rejected the push.
    public var deliveries: [DeviceDelivery]
    /// The request body as sent. Nil in the history for a push the device rendered once a newer
    /// one arrived, unless the mock keeps every payload (``MockAPNsConfiguration/keepsEveryPayload``).
    public var payload: String?
    /// Where the request departed from what Apple documents while APNs still accepted it, such
    /// as a provider token with `iat` as a string. Left out of the JSON when empty.
    public var warnings: [String] = []
    /// `aps.timestamp` (UNIX seconds) of a device push APNs accepted, as the device read it:
    /// what order checks compare once the body itself has been dropped from the history.
    public var timestamp: Double?

    enum CodingKeys: String, CodingKey {
        case time, kind, token, id, priority, status, reason, deliveries, payload, warnings, timestamp
        case channelID = "channel-id"
    }
}

extension AnsweredPush {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        time = try container.decode(Millis.self, forKey: .time)
        kind = try container.decode(Kind.self, forKey: .kind)
        token = try container.decodeIfPresent(String.self, forKey: .token)
        channelID = try container.decodeIfPresent(String.self, forKey: .channelID)
        id = try container.decode(String.self, forKey: .id)
        priority = try container.decode(Int.self, forKey: .priority)
        status = try container.decode(Int.self, forKey: .status)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        deliveries = try container.decode([DeviceDelivery].self, forKey: .deliveries)
        payload = try container.decodeIfPresent(String.self, forKey: .payload)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings) ?? []
        timestamp = try container.decodeIfPresent(Double.self, forKey: .timestamp)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(time, forKey: .time)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(token, forKey: .token)
        try container.encodeIfPresent(channelID, forKey: .channelID)
        try container.encode(id, forKey: .id)
        try container.encode(priority, forKey: .priority)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encode(deliveries, forKey: .deliveries)
        try container.encodeIfPresent(payload, forKey: .payload)
        if !warnings.isEmpty { try container.encode(warnings, forKey: .warnings) }
        try container.encodeIfPresent(timestamp, forKey: .timestamp)
    }
}
