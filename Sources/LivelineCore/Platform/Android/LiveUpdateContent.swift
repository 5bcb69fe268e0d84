/// What a Live Update shows at one moment: the `android:` block evaluated against the
/// content-state. Two contents that differ differ on the screen, which is what makes an
/// Android message worth FCM's high priority.
public struct LiveUpdateContent: Sendable, Hashable {
    /// The `NotificationChannel` id.
    public var channel: String
    /// The small icon's drawable name; nil: the app's default.
    public var smallIcon: String?
    /// The `Notification.Style`.
    public var style: AndroidLiveUpdate.Style
    /// The content title; empty when its template evaluates to nothing (a problem the renderer reports).
    public var title: String
    /// The content text; nil when its template was absent, null or empty.
    public var text: String?
    /// The status-bar chip's text, as sent (the phone may show less: ``AndroidRules/chipAsShown(_:)``).
    public var chip: String?
    /// The tracker's position in progress units, within `0...progressMax`.
    public var progress: Int?
    /// Sent with a progress or segments; nil when the bar is not drawn.
    public var progressMax: Int?
    /// The bar's segments, as the `android:` block writes them.
    public var segments: [AndroidLiveUpdate.Segment]
    /// The points along the bar.
    public var points: [AndroidLiveUpdate.Point]
    /// UNIX milliseconds.
    public var when: Millis?
    /// How `when` shows: a running chronometer, or a time of day when nil.
    public var chronometer: AndroidLiveUpdate.Chronometer?
    /// The app's own keys (`data:`) with their values. Liveline does not know how the app uses
    /// them, so they do not count as visible.
    public var extras: [DataPair]

    /// One of the app's own keys with its value.
    public struct DataPair: Sendable, Hashable {
        /// The app's key.
        public var key: String
        /// Its evaluated value, as text.
        public var value: String

        /// The app's `key` with `value`.
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// A content with every field given; ``LiveUpdateRenderer`` is what makes them from a scenario.
    public init(
        channel: String, smallIcon: String? = nil, style: AndroidLiveUpdate.Style, title: String, text: String? = nil,
        chip: String? = nil, progress: Int? = nil, progressMax: Int? = nil, segments: [AndroidLiveUpdate.Segment] = [],
        points: [AndroidLiveUpdate.Point] = [], when: Millis? = nil, chronometer: AndroidLiveUpdate.Chronometer? = nil,
        extras: [DataPair] = []
    ) {
        self.channel = channel
        self.smallIcon = smallIcon
        self.style = style
        self.title = title
        self.text = text
        self.chip = chip
        self.progress = progress
        self.progressMax = progressMax
        self.segments = segments
        self.points = points
        self.when = when
        self.chronometer = chronometer
        self.extras = extras
    }

    /// The names of what the screen shows differently from `old` (all of it when there is none),
    /// in the contract's words: `title`, `chip`, `progress`…
    public func visibleChanges(from old: LiveUpdateContent?) -> [String] {
        guard let old else { return ["new notification"] }
        var changed: [String] = []
        if title != old.title { changed.append(LiveUpdateKeys.title) }
        if text != old.text { changed.append(LiveUpdateKeys.text) }
        if chip != old.chip { changed.append(LiveUpdateKeys.chip) }
        if progress != old.progress || progressMax != old.progressMax { changed.append(LiveUpdateKeys.progress) }
        if segments != old.segments { changed.append(LiveUpdateKeys.segments) }
        if points != old.points { changed.append(LiveUpdateKeys.points) }
        if when != old.when || chronometer != old.chronometer { changed.append(LiveUpdateKeys.when) }
        if style != old.style { changed.append(LiveUpdateKeys.style) }
        if channel != old.channel { changed.append(LiveUpdateKeys.channel) }
        if smallIcon != old.smallIcon { changed.append(LiveUpdateKeys.smallIcon) }
        return changed
    }

    /// The data message that carries this content (keys in ``LiveUpdateKeys``' order, then the
    /// app's own). `timestamp` and `dismissAt` are UNIX milliseconds.
    public func data(
        activity: String, event: PushEvent, timestamp: Millis, alert: Alert<String>?, dismissAt: Millis?
    ) -> FCMData {
        var data = FCMData()
        data.append(LiveUpdateKeys.version, LiveUpdateKeys.currentVersion)
        data.append(LiveUpdateKeys.activity, activity)
        data.append(LiveUpdateKeys.event, event.rawValue)
        data.append(LiveUpdateKeys.timestamp, String(timestamp))
        data.append(LiveUpdateKeys.channel, channel)
        if let smallIcon { data.append(LiveUpdateKeys.smallIcon, smallIcon) }
        data.append(LiveUpdateKeys.style, style.rawValue)
        data.append(LiveUpdateKeys.title, title)
        if let text { data.append(LiveUpdateKeys.text, text) }
        if let chip { data.append(LiveUpdateKeys.chip, chip) }
        if let progress { data.append(LiveUpdateKeys.progress, String(progress)) }
        if let progressMax { data.append(LiveUpdateKeys.progressMax, String(progressMax)) }
        if !segments.isEmpty {
            data.append(
                LiveUpdateKeys.segments,
                Self.json(segments.map { ("length", $0.length, $0.color) }))
        }
        if !points.isEmpty {
            data.append(LiveUpdateKeys.points, Self.json(points.map { ("position", $0.position, $0.color) }))
        }
        if let when { data.append(LiveUpdateKeys.when, String(when)) }
        if let chronometer { data.append(LiveUpdateKeys.chronometer, chronometer.rawValue) }
        if let alert {
            data.append(LiveUpdateKeys.alert, "1")
            Self.append(
                alert.title, plain: LiveUpdateKeys.alertTitle, key: LiveUpdateKeys.alertTitleLocKey,
                args: LiveUpdateKeys.alertTitleLocArgs, to: &data)
            Self.append(
                alert.body, plain: LiveUpdateKeys.alertBody, key: LiveUpdateKeys.alertBodyLocKey,
                args: LiveUpdateKeys.alertBodyLocArgs, to: &data)
        }
        if let dismissAt { data.append(LiveUpdateKeys.dismissAt, String(dismissAt)) }
        for extra in extras { data.append(extra.key, extra.value) }
        return data
    }

    private static func append(
        _ text: Alert<String>.Text?, plain: String, key: String, args: String, to data: inout FCMData
    ) {
        switch text {
        case nil: break
        case .plain(let string)?: data.append(plain, string)
        case .localized(let locKey, let locArgs)?:
            data.append(key, locKey)
            if !locArgs.isEmpty {
                var writer = JSONWriter(capacity: 64)
                writer.raw(UInt8(ascii: "["))
                for (i, arg) in locArgs.enumerated() {
                    if i > 0 { writer.raw(UInt8(ascii: ",")) }
                    writer.string(arg)
                }
                writer.raw(UInt8(ascii: "]"))
                data.append(args, String(decoding: writer.bytes, as: UTF8.self))
            }
        }
    }

    /// `[{"length":45,"color":"#30d158"},…]`
    private static func json(_ items: [(name: StaticString, value: Int, color: String?)]) -> String {
        var writer = JSONWriter(capacity: 32 * items.count + 2)
        writer.raw(UInt8(ascii: "["))
        for (i, item) in items.enumerated() {
            if i > 0 { writer.raw(UInt8(ascii: ",")) }
            writer.raw(UInt8(ascii: "{"))
            writer.raw(UInt8(ascii: "\""))
            writer.raw(item.name)
            writer.raw(#"":"#)
            writer.int(item.value)
            if let color = item.color {
                writer.raw(#","color":"#)
                writer.string(color)
            }
            writer.raw(UInt8(ascii: "}"))
        }
        writer.raw(UInt8(ascii: "]"))
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
