/// What devices did with the pushes they received: the mock counts them per activity and in
/// total, and a load test against the mock reports the total (APNs's 200 never says this).
///
/// Counts add (``+=(_:_:)``), so totals, dashboards and merged load results are sums of these.
/// Decoding takes a missing count as 0, so results written before a count existed still read.
public struct DeviceCounts: Sendable, Hashable, Codable {
    /// Pushes that reached a device.
    public var received = 0
    /// Pushes whose content-state the device decoded and showed.
    public var rendered = 0
    /// Pushes dropped because their `timestamp` was not newer than the last one shown.
    public var droppedOld = 0
    /// Priority-10 pushes over the activity's budget, which the device held back.
    public var throttled = 0
    /// Pushes whose content-state the app's types would fail to decode.
    public var wouldNotRender = 0
    /// Pushes that arrived for an activity already ended.
    public var ignoredAfterEnd = 0
    /// Pushes that carried an alert the device showed.
    public var alerts = 0

    /// Counts with the values given, every other at zero.
    public init(
        received: Int = 0, rendered: Int = 0, droppedOld: Int = 0, throttled: Int = 0, wouldNotRender: Int = 0,
        ignoredAfterEnd: Int = 0, alerts: Int = 0
    ) {
        self.received = received
        self.rendered = rendered
        self.droppedOld = droppedOld
        self.throttled = throttled
        self.wouldNotRender = wouldNotRender
        self.ignoredAfterEnd = ignoredAfterEnd
        self.alerts = alerts
    }

    enum CodingKeys: String, CodingKey {
        case received, rendered, throttled, alerts
        case droppedOld = "dropped-old"
        case wouldNotRender = "would-not-render"
        case ignoredAfterEnd = "ignored-after-end"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int { try container.decodeIfPresent(Int.self, forKey: key) ?? 0 }
        received = try count(.received)
        rendered = try count(.rendered)
        droppedOld = try count(.droppedOld)
        throttled = try count(.throttled)
        wouldNotRender = try count(.wouldNotRender)
        ignoredAfterEnd = try count(.ignoredAfterEnd)
        alerts = try count(.alerts)
    }

    /// Adds each of `counts` to the same count of `total`.
    public static func += (total: inout DeviceCounts, counts: DeviceCounts) {
        total.received += counts.received
        total.rendered += counts.rendered
        total.droppedOld += counts.droppedOld
        total.throttled += counts.throttled
        total.wouldNotRender += counts.wouldNotRender
        total.ignoredAfterEnd += counts.ignoredAfterEnd
        total.alerts += counts.alerts
    }

    /// The counts of `a` and `b`, summed one by one.
    public static func + (a: DeviceCounts, b: DeviceCounts) -> DeviceCounts {
        var sum = a
        sum += b
        return sum
    }
}
