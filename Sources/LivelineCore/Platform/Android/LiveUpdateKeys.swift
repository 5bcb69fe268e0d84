/// The keys of a Live Update's FCM data message: the contract between Liveline and the app's
/// `FirebaseMessagingService` (documented in `docs/fcm.md`, with a Kotlin reference).
///
/// Every value is a string, as FCM requires of data messages; numbers are written in decimal,
/// times in UNIX milliseconds, lists as compact JSON. Keys a message does not need are left out.
public enum LiveUpdateKeys {
    /// `"1"`: the contract's version. The app routes messages with this key to its Live Update code.
    public static let version = "liveline"
    /// The activity's name: the notification's tag.
    public static let activity = "activity"
    /// `start`, `update` or `end`.
    public static let event = "event"
    /// UNIX milliseconds (a whole second), strictly increasing per activity: the app drops a
    /// message that is not newer than what it shows, since FCM does not keep order.
    public static let timestamp = "timestamp"
    /// The `NotificationChannel` id the app posts the notification on.
    public static let channel = "channel"
    /// The small icon's drawable resource name; absent: the app's default.
    public static let smallIcon = "small_icon"
    /// `progress`, `big-text` or `standard`.
    public static let style = "style"
    /// The content title.
    public static let title = "title"
    /// The content text; absent: none.
    public static let text = "text"
    /// The status-bar chip's short critical text.
    public static let chip = "chip"
    /// The tracker's position on the bar, in progress units.
    public static let progress = "progress"
    /// The bar's length in progress units; present whenever a bar is drawn.
    public static let progressMax = "progress_max"
    /// `[{"length":45,"color":"#30d158"},…]`
    public static let segments = "segments"
    /// `[{"position":45,"color":"#ffffff"},…]`
    public static let points = "points"
    /// UNIX milliseconds.
    public static let when = "when"
    /// `up` or `down`.
    public static let chronometer = "chronometer"
    /// `"1"`: this update should alert (sound, heads-up) rather than update quietly.
    public static let alert = "alert"
    /// The alert's title, when it is plain text.
    public static let alertTitle = "alert_title"
    /// The alert's body, when it is plain text.
    public static let alertBody = "alert_body"
    /// The string resource name of a localized alert title, in place of ``alertTitle``.
    public static let alertTitleLocKey = "alert_title_loc_key"
    /// A JSON list of strings: the format arguments of ``alertTitleLocKey``.
    public static let alertTitleLocArgs = "alert_title_loc_args"
    /// The string resource name of a localized alert body, in place of ``alertBody``.
    public static let alertBodyLocKey = "alert_body_loc_key"
    /// A JSON list of strings: the format arguments of ``alertBodyLocKey``.
    public static let alertBodyLocArgs = "alert_body_loc_args"
    /// On an end: UNIX milliseconds when the notification leaves the screen.
    public static let dismissAt = "dismiss_at"

    /// The contract's version, the value of ``version``.
    public static let currentVersion = "1"

    /// Every key Liveline may send, in the order it writes them.
    public static let all = [
        version, activity, event, timestamp, channel, smallIcon, style, title, text, chip, progress, progressMax,
        segments, points, when, chronometer, alert, alertTitle, alertBody, alertTitleLocKey, alertTitleLocArgs,
        alertBodyLocKey, alertBodyLocArgs, dismissAt,
    ]

    /// Why FCM refuses `key` in a data message, or nil when it may be used.
    ///
    /// FCM reserves `from`, `notification` and `message_type`, and every key that starts with
    /// `google` or `gcm`; the legacy protocol's option names are refused too, since FCM still
    /// reads them on the device (`collapse_key`, `priority`, `time_to_live`…).
    public static func reservedReason(_ key: String) -> String? {
        let lowered = key.lowercased()
        if reservedWords.contains(lowered) { return "'\(key)' is a key FCM reserves" }
        for prefix in reservedPrefixes where lowered.hasPrefix(prefix) {
            return "keys starting with '\(prefix)' are reserved by FCM"
        }
        return nil
    }

    static let reservedWords: Set<String> = [
        "from", "notification", "message_type", "collapse_key", "priority", "time_to_live", "to", "registration_ids",
        "condition", "content_available", "mutable_content", "restricted_package_name", "dry_run", "data",
    ]
    static let reservedPrefixes = ["google", "gcm"]
}
