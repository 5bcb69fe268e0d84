import LivelineCore

/// What the phone shows of one activity: the notification, whether it is promoted (a Live
/// Update at the top of the shade, on the lock screen and as a status-bar chip) and why not.
public struct PhoneNotification: Sendable, Hashable {
    /// The activity's name.
    public var activity: String
    /// The timestamp of the message it shows, UNIX milliseconds.
    public var timestamp: Millis
    /// What it shows, as the message carried it; the small icon only when the app has that
    /// drawable (the app's default otherwise), and the chip as sent (``chipShown`` is what reads).
    public var content: LiveUpdateContent
    /// Ongoing (not swipeable); an ended one is not.
    public var ongoing: Bool
    /// Whether it is a Live Update (promoted) rather than a plain notification.
    public var promoted: Bool
    /// Why it is a plain notification rather than a Live Update, when it is one.
    public var notPromotedBecause: String?
    /// When it leaves the screen (an end's dismissal), UNIX milliseconds.
    public var removeAt: Millis?
    /// When it was first posted, UNIX milliseconds.
    public var postedAt: Millis
    /// When it was last updated, UNIX milliseconds.
    public var updatedAt: Millis

    /// What the status-bar chip reads: only a promoted notification has one, and a long text is cut.
    public var chipShown: String? {
        guard promoted, let chip = content.chip, !chip.isEmpty else { return nil }
        return AndroidRules.chipAsShown(chip)
    }
}
