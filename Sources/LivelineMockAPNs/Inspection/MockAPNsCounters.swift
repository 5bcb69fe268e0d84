import Liveline

/// The mock's running counters, for `GET /counters`: what ``MockAPNsStats`` says without the
/// sums over every activity (lifecycles and device counts), so it costs the same at a million
/// activities as at one, and a benchmark may poll it every few milliseconds without holding
/// the lock that every push takes.
public struct MockAPNsCounters: Sendable, Hashable, Codable {
    /// Requests answered (or reset), all endpoints.
    public var requests = 0
    /// Responses by HTTP status, e.g. `"200": 1200`.
    public var statuses: [String: Int] = [:]
    public var devicePushes = 0
    public var broadcasts = 0
    public var activities = 0
    /// Time since start or the last reset, on the mock's clock.
    public var uptimeMillis: Millis = 0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case requests, statuses, broadcasts, activities
        case devicePushes = "device-pushes"
        case uptimeMillis = "uptime-ms"
    }
}
