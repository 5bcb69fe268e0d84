import Foundation
import Liveline

/// An activity the dispatcher has claimed: its registration, engine state, and the events
/// waiting for it (oldest order key first; ties in arrival order). A pass holds it by its
/// transaction's locks; a replay leases it to one instance.
public struct ActivityWork: Sendable, Hashable {
    /// The activity as registered, with its engine state.
    public var activity: RegisteredActivity
    /// The events waiting for it, in the order they apply.
    public var events: [StoredEvent]
    /// Whether the key has followers (or had, and keeps a fan-out for the next one to catch up
    /// with): its pushes also fan out to them.
    public var hasFollowers: Bool = false

    /// Work of `events` for `activity`.
    public init(activity: RegisteredActivity, events: [StoredEvent], hasFollowers: Bool = false) {
        self.activity = activity
        self.events = events
        self.hasFollowers = hasFollowers
    }
}

/// One dispatch step of one activity, written in one transaction: the events it applied or
/// superseded, the engine state after them, and the pushes they decided. Either all of it is
/// committed or none, so a crash between deciding a push and storing it cannot happen.
public struct DispatchCommit: Sendable {
    /// The activity the step ran.
    public var activityKey: String
    /// The inbox sequence numbers of the events it applied.
    public var applied: [Int64]
    /// Events kept but not applied, each with why (older than one applied, activity ended…).
    public var superseded: [(sequence: Int64, reason: String)]
    /// The activity's lifecycle after the step.
    public var lifecycle: ActivityEngine.Lifecycle
    /// The engine's snapshot after the step, in its compact byte form.
    public var engineState: [UInt8]
    /// When the engine next wants to run (nil: never, it has ended).
    public var nextDeadline: Millis?
    /// The pushes the step decided, for the outbox.
    public var pushes: [OutboxPush]
    /// The pushes that fan out to the key's followers (all it decided, when it has any), each
    /// one fan-out row; ``pushes`` then holds only those the key's own token or channel takes.
    public var fanOuts: [OutboxPush] = []
    /// Dead letters this step replaces with a fresh push of the current state.
    public var replacedDeadLetters: [Int64]
    /// The activity's last error, when this step met one (an event that does not fit the story).
    public var error: String?
    /// When the step ran; the store stamps what it writes with it.
    public var now: Millis
    /// Keep the lease (more work follows at once) or give it back.
    public var releasesLease: Bool
    /// The engine's reason for each of ``pushes``, in the same order ("beat picked-up · budget
    /// 11/12"): stored with the push for its delivery history, and kept by the instance that ran
    /// the step in its ``DispatchJournal``.
    public var pushReasons: [String] = []
    /// The engine's reason for each of ``fanOuts``, in the same order.
    public var fanOutReasons: [String] = []
    /// The applied events that no rule names (recorded only); a subset of ``applied``.
    public var ignored: [Int64] = []
    /// Renewals the step decided (`Renewal`), for the key's own activity and its followers;
    /// their pushes are in neither ``pushes`` nor ``fanOuts``.
    public var renewals: [RenewalPushes] = []

    /// A step with the parts given.
    public init(
        activityKey: String, applied: [Int64] = [], superseded: [(sequence: Int64, reason: String)] = [],
        lifecycle: ActivityEngine.Lifecycle, engineState: [UInt8], nextDeadline: Millis?, pushes: [OutboxPush] = [],
        replacedDeadLetters: [Int64] = [], error: String? = nil, now: Millis, releasesLease: Bool = true
    ) {
        self.activityKey = activityKey
        self.applied = applied
        self.superseded = superseded
        self.lifecycle = lifecycle
        self.engineState = engineState
        self.nextDeadline = nextDeadline
        self.pushes = pushes
        self.replacedDeadLetters = replacedDeadLetters
        self.error = error
        self.now = now
        self.releasesLease = releasesLease
    }
}

/// What `PUT /v1/activities/{key}` sets: where pushes go and which story the activity follows.
/// The engine state is the dispatcher's and is never touched by a registration.
public struct ActivityRegistration: Sendable, Hashable {
    /// The key naming the activity (an order number, a match id).
    public var activityKey: String
    /// Where its pushes go.
    public var targets: ActivityTargets
    /// The name of the source whose story the activity follows.
    public var source: String
    /// Whether the app declares `NSSupportsLiveActivitiesFrequentUpdates` (a larger budget).
    public var frequentUpdates: Bool
    /// The key's own `renew`, over its scenario's; nil: the scenario's.
    public var renewal: RenewalChoice?

    /// A registration with the parts given.
    public init(
        activityKey: String, targets: ActivityTargets, source: String, frequentUpdates: Bool = false,
        renewal: RenewalChoice? = nil
    ) {
        self.activityKey = activityKey
        self.targets = targets
        self.source = source
        self.frequentUpdates = frequentUpdates
        self.renewal = renewal
    }
}

extension DispatchCommit {
    /// The engine's reason for the push at `index` of ``pushes`` ("" when the step gave none).
    func reason(ofPush index: Int) -> String {
        index < pushReasons.count ? pushReasons[index] : ""
    }
}
