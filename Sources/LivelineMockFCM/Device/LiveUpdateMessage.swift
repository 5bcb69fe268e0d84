import LivelineCore

/// A data message read by the app's receiver, following Liveline's contract (`docs/fcm.md`):
/// what the reference `FirebaseMessagingService` takes out of it before it builds a notification.
public struct LiveUpdateMessage: Sendable, Hashable {
    /// The activity's name (`activity`), which keys the notification.
    public var activity: String
    /// `start`, `update` or `end`.
    public var event: PushEvent
    /// UNIX milliseconds.
    public var timestamp: Millis
    /// What the notification shows, as the sender rendered it (the app's own keys in
    /// ``LiveUpdateContent/extras``).
    public var content: LiveUpdateContent
    /// Whether this post should alert (sound, heads-up).
    public var alert: Bool
    /// When an end leaves the screen, UNIX milliseconds.
    public var dismissAt: Millis?

    /// Why a data message does not become a Live Update.
    public enum Refusal: Error, Sendable, Hashable {
        /// It has no `liveline` key: one of the app's other messages.
        case notLiveUpdate
        /// It is meant as one, but the app cannot show it; the reason says why.
        case wouldNotRender(String)
    }

    /// Reads `data` as the app does; `app` says which of the app's own keys its code knows.
    public static func read(_ data: FCMData, app: AndroidAppModel) -> Result<LiveUpdateMessage, Refusal> {
        do throws(Refusal) {
            return .success(try LiveUpdateMessage(data, app: app))
        } catch {
            return .failure(error)
        }
    }

    init(_ data: FCMData, app: AndroidAppModel) throws(Refusal) {
        // One pass over the entries: each of Liveline's keys into its place (the first of a
        // repeated key, as a lookup finds it), the app's own keys kept in order.
        var known = [String?](repeating: nil, count: LiveUpdateKeys.all.count)
        var extras: [LiveUpdateContent.DataPair] = []
        var unknownKey: String?
        for entry in data.entries {
            if let place = Self.places[entry.key] {
                if known[place] == nil { known[place] = entry.value }
            } else if app.ownKeys.contains(entry.key) {
                extras.append(LiveUpdateContent.DataPair(key: entry.key, value: entry.value))
            } else if unknownKey == nil {
                unknownKey = entry.key
            }
        }
        func value(_ key: String) -> String? {
            Self.places[key].flatMap { known[$0] }
        }
        guard let version = value(LiveUpdateKeys.version) else { throw .notLiveUpdate }
        guard version == LiveUpdateKeys.currentVersion else {
            throw .wouldNotRender(
                "the message is contract version \(version); the app reads version \(LiveUpdateKeys.currentVersion)")
        }
        if let unknownKey {
            throw .wouldNotRender(
                "the key '\(unknownKey)' is not in the app's contract (Liveline's keys and its own: \(app.ownKeys.sorted().joined(separator: ", ")))"
            )
        }
        func required(_ key: String) throws(Refusal) -> String {
            guard let value = value(key), !value.isEmpty else { throw .wouldNotRender("the message has no '\(key)'") }
            return value
        }
        func number(_ key: String) throws(Refusal) -> Int64? {
            guard let text = value(key) else { return nil }
            guard let value = Int64(text) else { throw .wouldNotRender("'\(key)' is '\(text)', not a whole number") }
            return value
        }
        activity = try required(LiveUpdateKeys.activity)
        let eventText = try required(LiveUpdateKeys.event)
        guard let event = PushEvent(rawValue: eventText) else {
            throw .wouldNotRender("'event' is '\(eventText)'; expected start, update or end")
        }
        self.event = event
        guard let timestamp = try number(LiveUpdateKeys.timestamp) else {
            throw .wouldNotRender("the message has no 'timestamp'")
        }
        self.timestamp = timestamp
        let channel = try required(LiveUpdateKeys.channel)
        let styleText = value(LiveUpdateKeys.style) ?? AndroidLiveUpdate.Style.standard.rawValue
        guard let style = AndroidLiveUpdate.Style(rawValue: styleText) else {
            throw .wouldNotRender("'style' is '\(styleText)'; expected progress, big-text or standard")
        }
        var chronometer: AndroidLiveUpdate.Chronometer?
        if let text = value(LiveUpdateKeys.chronometer) {
            guard let value = AndroidLiveUpdate.Chronometer(rawValue: text) else {
                throw .wouldNotRender("'chronometer' is '\(text)'; expected up or down")
            }
            chronometer = value
        }
        content = LiveUpdateContent(
            channel: channel, smallIcon: value(LiveUpdateKeys.smallIcon), style: style,
            title: value(LiveUpdateKeys.title) ?? "", text: value(LiveUpdateKeys.text),
            chip: value(LiveUpdateKeys.chip),
            progress: try number(LiveUpdateKeys.progress).map { Int($0) },
            progressMax: try number(LiveUpdateKeys.progressMax).map { Int($0) },
            segments: try Self.marks(value(LiveUpdateKeys.segments), key: LiveUpdateKeys.segments, number: "length").map
            {
                .init(length: $0.0, color: $0.1)
            },
            points: try Self.marks(value(LiveUpdateKeys.points), key: LiveUpdateKeys.points, number: "position").map {
                .init(position: $0.0, color: $0.1)
            },
            when: try number(LiveUpdateKeys.when), chronometer: chronometer,
            extras: extras)
        alert = value(LiveUpdateKeys.alert) == "1"
        dismissAt = try number(LiveUpdateKeys.dismissAt)
    }

    /// Each of Liveline's keys (`LiveUpdateKeys.all`) by its place: one hash finds a key, where
    /// a search of the list compares up to 24 strings.
    private static let places: [String: Int] = Dictionary(
        LiveUpdateKeys.all.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })

    /// `[{"length":45,"color":"#30d158"},…]`
    private static func marks(_ text: String?, key: String, number: String) throws(Refusal) -> [(Int, String?)] {
        guard let text else { return [] }
        guard case .array(let items)? = try? JSONParser.parse(text) else {
            throw .wouldNotRender("'\(key)' is not a JSON list")
        }
        var result: [(Int, String?)] = []
        for item in items {
            guard case .object(let fields) = item, case .int(let value)? = fields[number] else {
                throw .wouldNotRender("an item of '\(key)' has no whole-number '\(number)'")
            }
            var color: String?
            if case .string(let text)? = fields["color"] { color = text }
            result.append((value, color))
        }
        return result
    }
}
