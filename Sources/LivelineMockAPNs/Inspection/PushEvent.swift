import Liveline

/// One push as the mock answered it and what the device(s) did with it.
///
/// The same value feeds the per-token history (`GET /activities/{token}/pushes`) and the live
/// stream of ``MockAPNsServer/events(bufferingNewest:)``.
public struct PushEvent: Sendable, Hashable, Codable {
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
    /// The request body as sent.
    public var payload: String

    enum CodingKeys: String, CodingKey {
        case time, kind, token, id, priority, status, reason, deliveries, payload
        case channelID = "channel-id"
    }
}
