import LivelineCore

/// What the phone shows of one activity: the notification, whether it is promoted (a Live
/// Update at the top of the shade, on the lock screen and as a status-bar chip) and why not.
public struct PhoneNotification: Sendable, Hashable {
    public var activity: String
    /// The timestamp of the message it shows, UNIX milliseconds.
    public var timestamp: Millis
    public var channel: String
    public var smallIcon: String?
    public var style: AndroidLiveUpdate.Style
    public var title: String
    public var text: String?
    /// The short critical text as sent.
    public var chip: String?
    public var progress: Int?
    public var progressMax: Int?
    public var segments: [AndroidLiveUpdate.Segment]
    public var points: [AndroidLiveUpdate.Point]
    public var when: Millis?
    public var chronometer: AndroidLiveUpdate.Chronometer?
    /// Ongoing (not swipeable); an ended one is not.
    public var ongoing: Bool
    public var promoted: Bool
    /// Why it is a plain notification rather than a Live Update, when it is one.
    public var notPromotedBecause: String?
    /// When it leaves the screen (an end's dismissal), UNIX milliseconds.
    public var removeAt: Millis?
    public var postedAt: Millis
    public var updatedAt: Millis

    /// What the status-bar chip reads: only a promoted notification has one, and a long text is cut.
    public var chipShown: String? {
        guard promoted, let chip, !chip.isEmpty else { return nil }
        return AndroidRules.chipAsShown(chip)
    }
}
