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
        /// A start its sender may have sent before it stopped without recording APNs' answer:
        /// not sent again (a phone given two starts shows two Live Activities); the app's
        /// update token settles it, a new push-to-start token sends it again.
        case inDoubt = "in-doubt"
        /// A renewal's push APNs refused for good (another 4xx, a push-to-start token gone,
        /// retries spent): the device keeps the activity it shows until the system ends it.
        case refused
    }

    /// The entry's id: newer entries have higher ids (`?before=` pages by it).
    public var id: Int64
    /// The activity the push was for.
    public var activityKey: String
    /// Whether it started, updated or ended the activity.
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
    /// APNs' reason for refusing it (`BadDeviceToken`); nil when it was accepted.
    public var apnsReason: String?
    /// The `apns-id` APNs answered with, to look the push up in Apple's Push Notifications Console.
    public var apnsID: String?
    /// The instance that sent it; for a fan-out, every instance that sent a range of it.
    public var instances: [String]
    /// What became of it.
    public var outcome: Outcome
    /// What went wrong, in words, when it did not arrive.
    public var error: String?
    /// Which attempt this was (1 for the first). A hold does not count: the attempt after it
    /// has the same number.
    public var attempt: Int
    /// For a fan-out: its id, and the followers APNs accepted it for, refused it for, and that
    /// wait because their app is halted, so far. For a renewal's push to the key's followers:
    /// the same counts, its id the renewal's.
    public var fanOut: FanOutTally?
    /// The renewal the push belongs to (its start of a successor or its end of a predecessor),
    /// by the renewal's id; nil for the story's own pushes.
    public var renewal: Int64?
    /// Who an attempt went to: APNs (`ios`), or FCM (`android`) for a key registered with an
    /// `fcm-token`, whose answer is then FCM's (``status``, its error status in ``apnsReason``,
    /// the message's name in ``apnsID``). A fan-out counts each platform in its tally.
    public var platform: Platform = .ios

    /// A fan-out's own part of its history entry (or a renewal's, for the key's followers).
    public struct FanOutTally: Sendable, Hashable {
        /// The fan-out's id (a renewal's id, for a renewal's push to the followers).
        public var id: Int64
        /// Followers APNs accepted it for.
        public var sent: Int
        /// Followers it failed for (refused, given up, or a start in doubt).
        public var failed: Int
        /// Followers held while their app and environment is halted: they wait as exceptions
        /// and are sent the key's newest push when sending resumes (not failures).
        public var held = 0
        /// Of ``sent`` and ``failed``, the Android phones' (FCM's answers); the rest are iPhones'.
        public var android = PlatformTally()
        /// Its failures by APNs reason, each with a few followers' devices.
        public var failures: [FanOutFailureSummary] = []
    }

    /// One platform's share of a fan-out.
    public struct PlatformTally: Sendable, Hashable {
        /// Followers on the platform the push was sent to.
        public var sent = 0
        /// Followers on the platform it failed for.
        public var failed = 0

        /// A tally of `sent` and `failed`.
        public init(sent: Int = 0, failed: Int = 0) {
            self.sent = sent
            self.failed = failed
        }
    }
}

/// A follower's newest push, as `GET /v1/activities/{key}/followers/{device}` shows it: the
/// history entry of the fan-out (or catch-up) that reached it last, and what became of it for
/// this device.
public struct FollowerLastPush: Sendable, Hashable {
    /// What became of the push for this follower.
    public enum Outcome: Sendable, Hashable {
        /// Its fan-out has not reached this follower yet.
        case queued
        /// APNs accepted it.
        case delivered
        /// It failed with this APNs reason (or `transport`); see the follower's retry state.
        case failed(reason: String)
        /// The follower waits for a retry or its catch-up, after this error.
        case retrying(error: String?, dueAt: Millis)
        /// Its app and environment is halted (APNs refused the setup): the follower waits, its
        /// attempts not counted, and is sent the key's newest push after the probe due `until`
        /// takes the setup; `error` says why.
        case held(error: String?, until: Millis)
        /// Its start may or may not have arrived (its sender stopped before the answer was
        /// recorded): not sent again; the app's update token settles it.
        case inDoubt
    }

    /// The history entry of the push.
    public var push: PushRecord
    /// What became of it for this follower.
    public var outcome: Outcome
    /// When this follower's own answer came (a catch-up, a failure or a hold); the fan-out's
    /// latest answer when it is the fan-out's; nil while it is queued.
    public var answeredAt: Millis?
}
