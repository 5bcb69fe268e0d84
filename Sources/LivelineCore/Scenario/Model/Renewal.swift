/// How a story carries on past the system's limit on one Live Activity (`renew:`).
///
/// iOS ends an activity 8 hours after it started. A story that runs longer (a cricket day, a
/// delayed flight, a long delivery window) renews: `before` into each activity the engine starts
/// a successor by push-to-start with the current content-state and a quiet alert, and ends the
/// predecessor at once with the same state. Pushes after that go to the successor. Renewals go
/// on, every `before`, until the story ends or reaches `until`.
///
/// A renewal needs a push-to-start token on each device: `liveline play --start-token` (the
/// embedded mock makes one up), or a bridge key or follower registered with one.
public struct Renewal: Sendable, Hashable {
    /// How long after an activity starts its successor starts; under the policy's `max-duration`.
    public var before: Millis
    /// How long the whole story may run, across renewals: the engine ends it there.
    public var until: Millis
    /// The successor's start alert, never with a sound: iOS drops a start without an alert, and
    /// the renewal is not news. A file without one gets the scenario's name as the title; nil
    /// (in code) sends the activity's name.
    public var alert: Alert<TextTemplate>?
    /// Where `renew:` is written, for diagnostics; nil when built in code.
    public var location: SourceLocation?

    /// A renewal `before` into each activity, for a story of at most `until`.
    public init(
        before: Millis, until: Millis = Renewal.defaultUntil, alert: Alert<TextTemplate>? = nil,
        location: SourceLocation? = nil
    ) {
        self.before = before
        self.until = until
        self.alert = alert
        self.location = location
    }

    /// The shortest `before`: a renewal lights the screen (its start carries an alert), so it
    /// should come once in hours, not minutes.
    public static let shortestBefore: Millis = 3_600_000
    /// The least a renewal must leave before the system's limit, for the successor's start to
    /// arrive and the predecessor's end to follow it.
    public static let leastMargin: Millis = 60_000
    /// `until` when the file gives none: a day.
    public static let defaultUntil: Millis = 24 * 3_600_000
    /// The longest `until`: thirty days.
    public static let longestUntil: Millis = 30 * 24 * 3_600_000

    /// What is wrong with renewing `before` into activities that the system ends after
    /// `maxDuration`, for a story of at most `until`; nil when nothing is. The scenario reader
    /// and the bridge's registry say the same thing in the same words.
    public static func problem(before: Millis, until: Millis, maxDuration: Millis) -> String? {
        if before < shortestBefore {
            return
                "renew before \(DurationText.format(before)) is too soon: a renewal starts a new activity with an alert, so renew at most once an hour (before: 1h or more, like 7h30m)"
        }
        if before > maxDuration - leastMargin {
            return
                "renew before \(DurationText.format(before)) is not under max-duration (\(DurationText.format(maxDuration))) by at least \(DurationText.format(leastMargin)): the system would end the activity before its successor starts; renew sooner, like 7h30m"
        }
        if until <= before {
            return
                "renew until \(DurationText.format(until)) is not after before (\(DurationText.format(before))): the story would end before its first renewal"
        }
        if until > longestUntil {
            return
                "renew until \(DurationText.format(until)) is longer than \(DurationText.format(longestUntil)), the longest story Liveline renews"
        }
        return nil
    }
}
