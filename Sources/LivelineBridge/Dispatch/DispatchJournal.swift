import Foundation
import Liveline

/// What this instance's recent dispatch steps did with each event: applied, ignored or
/// superseded, and the pushes the step decided with the engine's reason for each. It answers
/// "what did my webhook do?" (`GET /v1/events/{source}/{event}`, `liveline bridge send --follow`)
/// with what the store does not keep: a sent push leaves the outbox, and its reason was never
/// stored.
///
/// In memory and bounded: the newest ``capacity`` events and as many activities. With several
/// instances, an event stepped on another one is not here; the store's part of the answer
/// (its state, the activity's last push and APNs' answer) still is.
public actor DispatchJournal {
    /// A push a step decided.
    public struct DecidedPush: Sendable, Hashable {
        /// Whether it starts, updates or ends the activity.
        public var event: PushEvent
        /// Its `apns-priority`: 10 or 5.
        public var priority: Int
        /// The engine's reason, as `plan` prints it.
        public var reason: String
        /// The payload, byte for byte.
        public var payload: [UInt8]
    }

    /// One step, as far as one of its events is concerned.
    public struct Step: Sendable, Hashable {
        /// What the step did with the event.
        public enum Outcome: Sendable, Hashable {
            /// Applied to the story.
            case applied
            /// Recorded only: no rule names its type.
            case ignored
            /// Kept, never applied, for the reason given (older than an event already applied, the activity ended…).
            case superseded(String)
        }

        /// What the step did with the event.
        public var outcome: Outcome
        /// When the step ran.
        public var at: Millis
        /// The pushes the step decided (for every event it applied).
        public var pushes: [DecidedPush]
        /// When the engine next wanted to run after the step (a held push, a heartbeat).
        public var nextDeadline: Millis?
    }

    /// How many events, and as many activities, the journal remembers; the oldest go first.
    public let capacity: Int
    private var steps: [Int64: Step] = [:]
    private var stepOrder: Admissions<Int64>
    /// Each activity's newest step with pushes, for a push that came after an event's own step.
    private var latestPushes: [String: (at: Millis, pushes: [DecidedPush])] = [:]
    private var activityOrder: Admissions<String>

    /// A journal remembering the newest `capacity` events (at least 1).
    public init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
        stepOrder = Admissions(capacity: self.capacity)
        activityOrder = Admissions(capacity: self.capacity)
    }

    /// Keys in the order they were first remembered, at most `capacity` of them.
    private struct Admissions<Key: Hashable> {
        let capacity: Int
        private var keys: [Key] = []
        private var start = 0

        init(capacity: Int) { self.capacity = capacity }

        /// Remembers a new key; returns the oldest one when it no longer fits.
        mutating func admit(_ key: Key) -> Key? {
            keys.append(key)
            guard keys.count - start > capacity else { return nil }
            let evicted = keys[start]
            start += 1
            if start > capacity {
                keys.removeFirst(start)
                start = 0
            }
            return evicted
        }
    }

    /// Remembers written commits.
    func remember(_ commits: [DispatchCommit]) {
        for commit in commits {
            let pushes = commit.pushes.enumerated().map { index, push in
                DecidedPush(
                    event: push.kind, priority: push.headers.priority.apnsValue,
                    reason: index < commit.pushReasons.count ? commit.pushReasons[index] : "", payload: push.payload)
            }
            let ignored = Set(commit.ignored)
            for sequence in commit.applied {
                remember(
                    sequence,
                    Step(
                        outcome: ignored.contains(sequence) ? .ignored : .applied, at: commit.now, pushes: pushes,
                        nextDeadline: commit.nextDeadline))
            }
            for (sequence, reason) in commit.superseded {
                remember(
                    sequence,
                    Step(
                        outcome: .superseded(reason), at: commit.now, pushes: pushes, nextDeadline: commit.nextDeadline)
                )
            }
            if !pushes.isEmpty, latestPushes.updateValue((commit.now, pushes), forKey: commit.activityKey) == nil,
                let evicted = activityOrder.admit(commit.activityKey)
            {
                latestPushes.removeValue(forKey: evicted)
            }
        }
    }

    /// The step that took up the event stored under `sequence`, if this instance ran it lately.
    public func step(of sequence: Int64) -> Step? { steps[sequence] }

    /// The pushes of the activity's newest step that decided any, if after `date`.
    public func pushes(of activityKey: String, after date: Millis) -> (at: Millis, pushes: [DecidedPush])? {
        guard let latest = latestPushes[activityKey], latest.at > date else { return nil }
        return latest
    }

    private func remember(_ sequence: Int64, _ step: Step) {
        if steps.updateValue(step, forKey: sequence) == nil, let evicted = stepOrder.admit(sequence) {
            steps.removeValue(forKey: evicted)
        }
    }
}
