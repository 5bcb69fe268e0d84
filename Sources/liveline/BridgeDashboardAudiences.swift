import LivelineBridge
import LivelineFCM
import LivelineMockAPNs
import LivelineMockFCM

/// The bridge's audiences on its embedded mock's dashboard: what ``AudienceWatch`` last read,
/// in the page's terms (the bridge and the mock do not know each other; the CLI wires them).
struct BridgeDashboardAudiences: DashboardAudienceSource {
    let watch: AudienceWatch
    /// The embedded mock FCM, whose phone model shows what an Android follower's phone draws.
    var mockFCM: MockFCMServer?

    func dashboardAudiences() -> [DashboardAudience] {
        watch.current().map { status in
            let followers = status.followers
            var audience = DashboardAudience(
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
            audience.android = status.androidSample.map { androidPhone($0, key: status.activityKey) }
            return audience
        }
    }

    /// What `follower`'s phone shows of `key`'s Live Update, by the mock FCM's phone model.
    private func androidPhone(_ follower: Follower, key: String) -> DashboardAudience.AndroidPhone {
        guard let text = follower.fcmToken, let target = FCMTarget(parsing: text), let mockFCM,
            let shown = mockFCM.phone(Self.recipient(target))?.notifications[key]
        else { return DashboardAudience.AndroidPhone(device: follower.device, shown: false) }
        let content = shown.content
        return DashboardAudience.AndroidPhone(
            device: follower.device, shown: true, title: content.title, text: content.text, chip: shown.chipShown,
            progress: content.progress, progressMax: content.progressMax, promoted: shown.promoted,
            notPromotedBecause: shown.notPromotedBecause, smallIcon: content.smallIcon, channel: content.channel,
            ended: !shown.ongoing)
    }

    private static func recipient(_ target: FCMTarget) -> FCMRecipient {
        switch target {
        case .token(let value): .token(value)
        case .fid(let value): .fid(value)
        }
    }
}
