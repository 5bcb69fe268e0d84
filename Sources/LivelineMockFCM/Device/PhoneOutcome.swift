import LivelineCore

/// What happened on the phone: to a message (stored, collapsed, delivered, refused) and to a
/// notification (posted, updated, dropped, removed), with the reason in words.
public struct PhoneOutcome: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// FCM holds it for the phone, which is offline.
        case stored
        /// FCM replaced a message it held with this newer one of the same collapse key.
        case collapsed
        /// FCM dropped it (a ttl of 0 while offline, too many held messages or collapse keys).
        case discarded
        /// Its time to live ran out before the phone came back.
        case expired
        /// A data message that is not a Live Update (no `liveline` key): the app's other code takes it.
        case notLiveUpdate
        /// The app cannot show it; the detail says why.
        case wouldNotRender
        /// Not newer than what the notification shows (FCM does not keep order): ignored.
        case stale
        /// Android dropped the update: the app posts faster than it allows.
        case droppedByRate
        case posted
        case updated
        /// The notification left the screen (an end's dismissal, at once or when it came).
        case removed
        /// The user demoted the Live Update to a plain notification.
        case demoted
    }

    public var kind: Kind
    public var activity: String?
    public var time: Millis
    public var detail: String
    /// The post alerted (sound, heads-up) rather than updating quietly.
    public var alerted: Bool

    public init(_ kind: Kind, activity: String?, at time: Millis, _ detail: String = "", alerted: Bool = false) {
        self.kind = kind
        self.activity = activity
        self.time = time
        self.detail = detail
        self.alerted = alerted
    }

    public var description: String {
        var text = kind.rawValue
        if let activity { text += " \(activity)" }
        if alerted { text += " (alerted)" }
        if !detail.isEmpty { text += ": " + detail }
        return text
    }
}
