import Foundation
import Liveline

/// One activity of a recording: how its story began and what each stored event did to it, as
/// `ActivityReplay` found by playing the events again the way the bridge applied them.
public struct RecordedActivity: Sendable {
    /// The activity key the bridge knew it by.
    public var activityKey: String
    /// The source whose story it followed.
    public var source: String
    /// That source's activity: its type, policy and beats.
    public var spec: ActivitySpec
    /// The scenario the source plays (its bundle id names the app).
    public var scenario: Scenario
    /// When the bridge's engine started it, in UNIX milliseconds.
    public var start: Millis
    /// The attributes and the first content-state, as the engine evaluated them at `start`.
    public var attributes: StateObject
    /// The first content-state, as the engine evaluated it at `start`.
    public var initialState: StateObject
    /// The first `relevance-score`, if any.
    public var relevance: Double?
    /// One entry per event a dispatch step took up, in the order the steps took them.
    public var entries: [RecordedEntry]
    /// The pushes the bridge's engine decided, played again, up to its last stored push.
    public var pushes: [Push]
    /// Where the replay and what the bridge stored disagree (a changed configuration, a dead
    /// letter sent again), said for the user.
    public var warnings: [String]
    /// Whether the activity has ended.
    public var ended: Bool

    /// The beats, without the notes.
    public var beats: [RecordedBeat] {
        entries.compactMap { if case .beat(let beat) = $0 { beat } else { nil } }
    }
}

/// What one stored event became in a recording.
public enum RecordedEntry: Sendable {
    /// It changed the story: one beat.
    case beat(RecordedBeat)
    /// It did not: no rule names it, it was superseded, or it changed nothing. The recording
    /// says so in a comment.
    case note(DispatchedEvent, String)
}

/// One beat of a recording: what an applied event did, as plain values (no templates, dates
/// as instants), at the offset its dispatch step had from the activity's start.
public struct RecordedBeat: Sendable {
    /// The stored event the beat comes from.
    public var event: DispatchedEvent
    /// After the activity's start. A step that came at the same instant as the one before it,
    /// or after a deadline due at that instant, is a millisecond later, so that the engine
    /// plays it after them as the bridge did.
    public var offset: Millis
    /// The top-level content-state fields it changed, with their new values.
    public var set: StateObject
    /// The new relevance, when it changed.
    public var relevance: Double?
    /// The priority the event asked for.
    public var priority: Priority
    /// The alert it showed, if any.
    public var alert: Alert<String>?
    /// Set when the event started the activity.
    public var start: StartSpec?
    /// `.some(nil)`: an end with the policy's dismissal.
    public var end: Dismissal??
    /// `.some(nil)`: `stale-after: none` from this beat on.
    public var staleAfter: Millis??
}
