/// How an activity shows on Android: the `android:` block of a scenario, which maps the
/// content-state to a Live Update (a promoted ongoing notification: the top of the shade, the
/// lock screen and a status-bar chip).
///
/// There is no server push type for a Live Update: the backend sends an FCM data message
/// (the keys of ``LiveUpdateKeys``) and the app posts or updates the notification from it.
/// Every value here is a template over the content-state and the attributes, evaluated for each
/// message the way beats are (``LiveUpdateRenderer``).
public struct AndroidLiveUpdate: Sendable {
    /// The `Notification.Style` the app builds.
    public enum Style: String, Sendable, Hashable, CaseIterable {
        /// `Notification.ProgressStyle`: a progress bar with segments and points.
        case progress
        /// `Notification.BigTextStyle`: the text on several lines.
        case bigText = "big-text"
        /// No style: title and one line of text.
        case standard
    }

    /// How the notification shows its `when`.
    public enum Chronometer: String, Sendable, Hashable, CaseIterable {
        /// Counts up from `when` (`setUsesChronometer(true)`).
        case up
        /// Counts down to `when` (`setChronometerCountDown(true)`).
        case down
    }

    /// One segment of a `ProgressStyle` bar: its length in progress units and its colour.
    public struct Segment: Sendable, Hashable {
        /// How many progress units the segment spans; the segments' lengths add up to the bar's.
        public var length: Int
        /// `#rrggbb`, or nil for the app's default.
        public var color: String?

        /// A segment `length` units long, in `color` (`#rrggbb`) or the app's default.
        public init(length: Int, color: String? = nil) {
            self.length = length
            self.color = color
        }
    }

    /// A point along a `ProgressStyle` bar, at a position in progress units.
    public struct Point: Sendable, Hashable {
        /// Where the point sits, in progress units from the bar's start.
        public var position: Int
        /// `#rrggbb`, or nil for the app's default.
        public var color: String?

        /// A point at `position` units, in `color` (`#rrggbb`) or the app's default.
        public init(position: Int, color: String? = nil) {
            self.position = position
            self.color = color
        }
    }

    /// A template with where it is written.
    public struct Value: Sendable {
        /// The template, evaluated for each message.
        public var template: ValueTemplate
        /// Where the value is written in the scenario file, for the problems rendering reports.
        public var location: SourceLocation

        /// `template`, written at `location`.
        public init(_ template: ValueTemplate, at location: SourceLocation) {
            self.template = template
            self.location = location
        }
    }

    /// One of the app's own keys (`data:`), sent beside Liveline's.
    public struct DataField: Sendable {
        /// The key; the scenario reader refuses one FCM reserves (``LiveUpdateKeys/reservedReason(_:)``).
        public var key: String
        /// The value's template; a value that evaluates to null is left out of the message.
        public var value: Value

        /// The app's key `key`, sent with `value` evaluated.
        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// The `NotificationChannel` id the app created for Live Updates.
    public var channel: String
    /// A drawable resource name for the small icon (`ic_stat_match`); nil: the app's default.
    public var smallIcon: String?
    /// The `Notification.Style` the app builds the notification with.
    public var style: Style
    /// The content title: a promoted notification must have one.
    public var title: Value
    /// The content text under the title; nil: none.
    public var text: Value?
    /// The short critical text of the status-bar chip (`setShortCriticalText`).
    public var chip: Value?
    /// The tracker's position, in progress units (a number; decimals are rounded).
    public var progress: Value?
    /// The bar's length in progress units: the segments' total, or 100 without segments.
    public var progressMax: Int
    /// The bar's segments, in order; empty: one plain bar.
    public var segments: [Segment]
    /// The points marked along the bar.
    public var points: [Point]
    /// The notification's time (`setWhen`): a `Date` value.
    public var when: Value?
    /// Shows `when` as a running chronometer; nil shows it as a time of day.
    public var chronometer: Chronometer?
    /// The app's own keys, in written order.
    public var data: [DataField]
    /// Where `android:` is written.
    public var location: SourceLocation

    /// An `android:` block with every field given, as the scenario reader builds it.
    public init(
        channel: String, smallIcon: String? = nil, style: Style, title: Value, text: Value? = nil,
        chip: Value? = nil, progress: Value? = nil, progressMax: Int = 100, segments: [Segment] = [],
        points: [Point] = [], when: Value? = nil, chronometer: Chronometer? = nil, data: [DataField] = [],
        location: SourceLocation
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
        self.data = data
        self.location = location
    }
}
