import Foundation
import Liveline

/// One entry of an activity's delivery history (`GET /v1/activities/{key}/pushes`,
/// `liveline bridge history`): a push to the key's own token or channel, one row per answered
/// attempt, or a fan-out to its followers, one row for all of them. Written in the transaction
/// that records the answer, so it survives restarts and every instance sharing the store reads it.
public struct PushRecord: Sendable, Hashable {
    /// What became of the attempt or the fan-out.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// APNs accepted it (2xx).
        case delivered
        /// It failed and is tried again after a back-off.
        case retrying
        /// Its last attempt failed, or no retry can fix it: it is a dead letter.
        case deadLetter = "dead-letter"
        /// APNs said the token is gone (410, `BadDeviceToken`): it is forgotten.
        case tokenGone = "token-gone"
        /// Not sent: the activity has no token it can go to.
        case noTarget = "no-target"
        /// Sending to its app and environment is halted (APNs refused the setup): it waits for
        /// the next probe, the attempt not counted.
        case held
        /// A fan-out still handing out ranges of followers.
        case fanningOut = "fanning-out"
        /// A fan-out every follower's answer is in for.
        case fannedOut = "fanned-out"
        /// A fan-out a newer push of its key replaced before it reached every follower; the
        /// newer one reaches the rest.
        case superseded
        /// A fan-out decided while the key had no follower, kept for the next one's catch-up.
        case noFollowers = "no-followers"
    }

    public var id: Int64
    public var activityKey: String
    public var kind: PushEvent
    /// 10 or 5.
    public var priority: Int
    /// The engine's reason ("beat picked-up · budget 11/12").
    public var reason: String
    /// The request body, byte for byte.
    public var payload: [UInt8]
    /// When the dispatch step that decided it was written.
    public var storedAt: Millis
    /// When it was sent (a fan-out: when its first range was handed out).
    public var sentAt: Millis?
    /// When APNs answered (a fan-out: its latest answered range).
    public var answeredAt: Millis?
    /// APNs' HTTP status; nil when nothing answered (a transport failure) and for fan-outs.
    public var status: Int?
    public var apnsReason: String?
    public var apnsID: String?
    /// The instance that sent it; for a fan-out, every instance that sent a range of it.
    public var instances: [String]
    public var outcome: Outcome
    /// What went wrong, in words, when it did not arrive.
    public var error: String?
    /// Which attempt this was (1 for the first).
    public var attempt: Int
    /// For a fan-out: its id, how many followers it was decided for (the highest follower id
    /// then), and the followers APNs accepted it for and refused it for so far.
    public var fanOut: FanOutTally?

    /// A fan-out's own part of its history entry.
    public struct FanOutTally: Sendable, Hashable {
        public var id: Int64
        public var sent: Int
        public var failed: Int
        /// Its failures by APNs reason, each with a few followers' devices.
        public var failures: [FanOutFailureSummary] = []
    }

}

/// A follower's newest push, as `GET /v1/activities/{key}/followers/{device}` shows it: the
/// history entry of the fan-out (or catch-up) that reached it last, and what became of it for
/// this device.
public struct FollowerLastPush: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable {
        /// Its fan-out has not reached this follower yet.
        case queued
        /// APNs accepted it.
        case delivered
        /// It failed with this APNs reason (or `transport`); see the follower's retry state.
        case failed(reason: String)
        /// The follower waits for a retry or its catch-up, after this error.
        case retrying(error: String?, dueAt: Millis)
        /// Its start may or may not have arrived (its sender stopped before the answer was
        /// recorded): not sent again; the app's update token settles it.
        case inDoubt
    }

    public var push: PushRecord
    public var outcome: Outcome
    /// When this follower's own answer came (a catch-up or a failure); nil when it is the
    /// fan-out's.
    public var answeredAt: Millis?
}
