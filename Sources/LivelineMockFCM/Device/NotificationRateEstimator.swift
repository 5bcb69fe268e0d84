import LivelineCore

/// Android's estimate of how fast an app posts notifications, and its rule for dropping updates.
///
/// Modelled on AOSP's `RateEstimator` and `NotificationManagerService`: the estimate is an
/// exponentially weighted mean of the time between posts (weight 0.5, starting at a generous
/// 1,000 s), updated with every post the app makes; an update to a notification already shown is
/// dropped when the rate estimated right after counting it is over 5 a second, unless it
/// completes a progress bar. New notifications are never dropped for the rate.
public struct NotificationRateEstimator: Sendable, Hashable {
    /// Android's default: 5 notification posts a second.
    public static let maxRate = 5.0
    static let weight = 0.5
    static let minimumGap = 0.0005

    private var last: Millis?
    private var interarrival = 1000.0

    public init() {}

    /// Counts a post at `now`.
    public mutating func count(at now: Millis) {
        if let last { interarrival = estimate(at: now, last: last) }
        last = now
    }

    /// The rate, in posts a second, if one more came at `now`.
    public func rate(at now: Millis) -> Double {
        guard let last else { return 0 }
        return 1 / estimate(at: now, last: last)
    }

    private func estimate(at now: Millis, last: Millis) -> Double {
        let gap = max(Double(now - last) / 1000, Self.minimumGap)
        return Self.weight * interarrival + (1 - Self.weight) * gap
    }
}
