import LivelineCore

/// The app on the phone, as far as a Live Update depends on it: the notification channels it
/// created, the permission it declares, the user's settings and the data keys its code knows.
public struct AndroidAppModel: Sendable, Hashable {
    /// A `NotificationChannel`'s importance; `min` channels are never promoted.
    public enum Importance: String, Sendable, Hashable, CaseIterable {
        case min, low, `default`, high
    }

    /// Channel ids the app created, with their importance.
    public var channels: [String: Importance]
    /// The manifest declares `android.permission.POST_PROMOTED_NOTIFICATIONS`.
    public var declaresPromotedPermission: Bool
    /// The user leaves Live Updates on for the app (`NotificationManager.canPostPromotedNotifications()`).
    public var userAllowsLiveUpdates: Bool
    /// Keys of the app's own (`data:` in the scenario) that its receiver reads beside Liveline's.
    public var ownKeys: Set<String>
    /// Drawable names the app has; an unknown small icon falls back to the app's default.
    public var drawables: Set<String>

    public init(
        channels: [String: Importance] = ["live-updates": .default], declaresPromotedPermission: Bool = true,
        userAllowsLiveUpdates: Bool = true, ownKeys: Set<String> = [], drawables: Set<String> = []
    ) {
        self.channels = channels
        self.declaresPromotedPermission = declaresPromotedPermission
        self.userAllowsLiveUpdates = userAllowsLiveUpdates
        self.ownKeys = ownKeys
        self.drawables = drawables
    }

    /// The app a story's `android:` blocks were written for: their channels (default importance),
    /// their small icons and their own data keys, with the permission declared and Live Updates
    /// allowed. What an embedded mock's phones run, so the story renders as its author meant.
    public init(serving updates: some Sequence<AndroidLiveUpdate>) {
        var channels: [String: Importance] = [:]
        var drawables: Set<String> = []
        var keys: Set<String> = []
        for update in updates {
            channels[update.channel] = .default
            if let icon = update.smallIcon { drawables.insert(icon) }
            keys.formUnion(update.data.map(\.key))
        }
        self.init(channels: channels, ownKeys: keys, drawables: drawables)
    }
}
