import Liveline

/// Counters over the whole mock, for `GET /stats` and ``MockAPNsServer/stats()``.
public struct MockAPNsStats: Sendable, Hashable, Codable {
    /// Requests answered (or reset), all endpoints.
    public var requests = 0
    /// Responses by HTTP status, e.g. `"200": 1200`.
    public var statuses: [String: Int] = [:]
    /// Error responses by reason.
    public var reasons: [String: Int] = [:]
    public var devicePushes = 0
    public var broadcasts = 0
    public var channelRequests = 0
    /// Responses whose error came from the fault plan, and injected GOAWAYs and resets.
    public var faultsInjected = 0
    /// Starts a phone rendered on a push-to-start token while an activity an earlier start on
    /// it made was still shown, with content no older than the start's: a phone with two Live
    /// Activities for one story, a sender's fault. (A start with newer content is a successor,
    /// a renewal, and not counted.)
    public var duplicateStarts = 0
    /// What the device did, summed over activities.
    public var device = DeviceCounts()
    public var activities = 0
    /// Activities per lifecycle now.
    public var lifecycles: [String: Int] = [:]
    public var connectionsOpen = 0
    public var connectionsTotal = 0
    public var goAwaysSent = 0
    public var connectionResets = 0
    /// Time since start or the last reset, on the mock's clock.
    public var uptimeMillis: Millis = 0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case requests, statuses, reasons, broadcasts, device, activities, lifecycles
        case devicePushes = "device-pushes"
        case channelRequests = "channel-requests"
        case faultsInjected = "faults-injected"
        case duplicateStarts = "duplicate-starts"
        case connectionsOpen = "connections-open"
        case connectionsTotal = "connections-total"
        case goAwaysSent = "goaways-sent"
        case connectionResets = "connection-resets"
        case uptimeMillis = "uptime-ms"
    }
}
