import Liveline
import Prometheus

/// The audiences' metrics: followers by state and by platform (set from the store with the
/// depths), fan-out lag (webhook stored → last follower answered), pushes per key, and pushes
/// and failures by platform. The key label comes from
/// registered activities (an authenticated registry client), one series per key whose followers
/// were sent a push, kept until the process restarts.
extension BridgeMetrics: FanOutObserver {
    /// Upper bounds of the fan-out lag histogram, in seconds: 10 ms to 2 minutes.
    public static let fanOutLagBuckets: [Double] = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120]

    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// Sets the followers gauges from the store's counts: by state, and by the APNs environment
    /// their tokens go to (those that named none in `defaultEnvironment`).
    public func setFollowers(_ counts: FollowerCounts, defaultEnvironment: APNsEnvironment = .sandbox) {
        let descriptor = Self.descriptor("liveline_followers", "Followers of all keys, by state.")
        for (state, value) in [
            ("updating", counts.updating), ("awaiting_start", counts.awaitingStart), ("on_channel", counts.onChannel),
            ("retrying", counts.retrying), ("catching_up", counts.catchingUp), ("in_doubt", counts.inDoubt),
        ] {
            registry.makeGauge(descriptor: descriptor, labels: [("state", state)]).set(to: Double(value))
        }
        let platforms = Self.descriptor(
            "liveline_followers_by_platform",
            "Followers of all keys, by platform (ios: APNs tokens, android: an FCM token).")
        for (platform, value) in counts.byPlatform {
            registry.makeGauge(descriptor: platforms, labels: [("platform", platform.rawValue)]).set(to: Double(value))
        }
        let environments = Self.descriptor(
            "liveline_followers_by_environment", "Followers of all keys, by the APNs environment of their tokens.")
        let byEnvironment = counts.byEnvironment(default: defaultEnvironment)
        for environment in APNsEnvironment.allCases {
            registry.makeGauge(descriptor: environments, labels: [("environment", environment.rawValue)])
                .set(to: Double(byEnvironment[environment] ?? 0))
        }
    }

    public func fanOutPushes(activityKey: String, count: Int) {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "liveline_fanout_pushes_total", "Pushes sent to followers (any answer), by activity key."),
            labels: [("key", activityKey)]
        ).increment(by: Int64(count))
    }

    public func fanOutAnswered(platform: Platform, sent: Int, failures: [String]) {
        let pushes = Self.descriptor(
            "liveline_follower_pushes_total",
            "Pushes to followers answered, by platform (APNs to iPhones, FCM to Android phones) and outcome.")
        if sent > 0 {
            registry.makeCounter(descriptor: pushes, labels: [("platform", platform.rawValue), ("outcome", "sent")])
                .increment(by: Int64(sent))
        }
        guard !failures.isEmpty else { return }
        registry.makeCounter(descriptor: pushes, labels: [("platform", platform.rawValue), ("outcome", "failed")])
            .increment(by: Int64(failures.count))
        let byReason = Self.descriptor(
            "liveline_follower_push_failures_total",
            "Pushes to followers that failed, by platform and APNs' or FCM's reason (retried ones included).")
        for (reason, count) in Dictionary(grouping: failures, by: { $0 }).mapValues(\.count) {
            registry.makeCounter(descriptor: byReason, labels: [("platform", platform.rawValue), ("reason", reason)])
                .increment(by: Int64(count))
        }
    }

    public func fanOutFinished(lagSeconds: Double) {
        registry.makeValueHistogram(
            descriptor: Self.descriptor(
                "liveline_fanout_lag_seconds",
                "Seconds from a webhook's receipt to its fan-out's last follower answered."),
            buckets: Self.fanOutLagBuckets
        ).record(max(lagSeconds, 0))
    }

    public func fanOutResumed(duplicates: Int) {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "liveline_fanout_duplicates_total",
                "Pushes sent again in a range whose instance died (same timestamp: devices drop them)."
            )
        ).increment(by: Int64(duplicates))
    }

    public func followersPruned(_ count: Int) {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "liveline_followers_pruned_total", "Followers removed because APNs or FCM said their token is gone.")
        ).increment(by: Int64(count))
    }
}
