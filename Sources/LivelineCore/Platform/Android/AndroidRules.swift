/// Android's and FCM's limits that shape a Live Update's messages, each with its source (the
/// details are in `docs/fcm.md`).
public enum AndroidRules {
    /// The chip's suggested length: `setShortCriticalText` suggests at most 7 characters, with
    /// no guarantee how much of a longer text shows.
    public static let chipLength = 7

    /// The least time between two notification posts of one app.
    ///
    /// Android drops an update to a posted notification (`NotificationManagerService`, "Shedding
    /// events") when the app's enqueue rate is over 5 a second. The rate is an exponentially
    /// weighted estimate (`RateEstimator`, weight 0.5) that already counts the post being checked,
    /// so evenly spaced posts are dropped once they come closer than 0.4 s (an estimate of
    /// 1 / (0.5 × spacing)); 400 ms apart, none ever is, whatever came before.
    public static let updateSpacing: Millis = 400

    /// FCM's allowance of collapsible messages per app and device: a burst of 20, then one more
    /// every 3 minutes; past it FCM delays them. A bucket of 20 an hour holds exactly that.
    public static let collapsiblePerHour = 20

    /// The longest time to live FCM keeps a message for an offline phone: 28 days.
    public static let maxTTL: Millis = 28 * 86_400_000

    /// FCM keeps at most 4 collapse keys per device at a time; with more, which ones survive is
    /// not guaranteed.
    public static let collapseKeysPerDevice = 4

    /// An end with the default dismissal leaves the screen this long after it, as iOS keeps an
    /// ended activity up to 4 hours.
    public static let defaultDismissal: Millis = 4 * 3_600_000

    /// Above this many bytes of keys and values a data message is close to FCM's 4,096: FCM
    /// counts some bytes of its own, and has refused messages a few dozen bytes under it.
    public static let dataMargin = 4000

    /// How the chip shows `text`: whole when it fits, otherwise its first characters and an ellipsis.
    public static func chipAsShown(_ text: String) -> String {
        guard text.count > chipLength else { return text }
        var kept = text.prefix(chipLength - 1)
        while kept.last?.isWhitespace == true { kept = kept.dropLast() }
        return String(kept) + "…"
    }
}
