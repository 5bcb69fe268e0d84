import LivelineBridge
import LivelineMockAPNs

/// The bridge's audiences on its embedded mock's dashboard: what ``AudienceWatch`` last read,
/// in the page's terms (the bridge and the mock do not know each other; the CLI wires them).
struct BridgeDashboardAudiences: DashboardAudienceSource {
    let watch: AudienceWatch

    func dashboardAudiences() -> [DashboardAudience] {
        watch.current().map { status in
            let followers = status.followers
            return DashboardAudience(
                key: status.activityKey, updating: followers.updating, awaitingStart: followers.awaitingStart,
                onChannel: followers.onChannel, retrying: followers.retrying, catchingUp: followers.catchingUp,
                inDoubt: followers.inDoubt, removed: status.removed,
                sampleToken: status.sample.flatMap { $0.updateToken ?? $0.startToken },
                fanOut: status.fanOut.map { fanOut in
                    DashboardAudience.FanOut(
                        event: fanOut.kind.rawValue, state: fanOut.state.rawValue, contentState: status.contentState,
                        answered: fanOut.answered, audience: status.audience, failed: fanOut.failed,
                        pushesPerSecond: status.pushesPerSecond, lagSeconds: status.lagSeconds,
                        failures: status.failures)
                })
        }
    }
}
