import Foundation
import Liveline
import LivelineAPNs
import Logging
import Synchronization

/// The audiences as a dashboard shows them, read from the store now and then and handed out
/// from memory: a page asks on every frame and never waits on the store.
///
/// Reading is kept cheap for keys with a million followers: the keys come from a skip over the
/// followers' index, the fan-outs and failure summaries from a few rows each, every
/// ``Configuration/interval``; the follower counts (``FollowerStore/followerCounts(activityKey:)``,
/// one kept row per key) every ``Configuration/countsInterval``. Nothing is read while no one asks.
/// Progress comes from the store, so on PostgreSQL it sums every instance's share of a fan-out.
public final class AudienceWatch: Sendable {
    /// How often the watch reads the store, and how much it shows.
    public struct Configuration: Sendable {
        /// How often the fan-outs are read while someone asks.
        public var interval: Duration
        /// How often each key's followers are counted.
        public var countsInterval: Duration
        /// The most keys shown: those with a fan-out under way first, then the newest fan-outs.
        public var keys: Int

        /// A configuration with the intervals given; at least one key is shown.
        public init(interval: Duration = .seconds(1), countsInterval: Duration = .seconds(5), keys: Int = 8) {
            self.interval = interval
            self.countsInterval = countsInterval
            self.keys = max(1, keys)
        }
    }

    private struct Counted {
        var counts: FollowerCounts
        var sample: Follower?
        var androidSample: Follower?
        var at: Millis
    }

    /// Answers of a key's fan-outs at one read, for the rate at the next.
    private struct Answered {
        var at: Millis
        var byFanOut: [Int64: Int]
    }

    private struct State {
        var statuses: [AudienceStatus] = []
        var readAt: Millis?
        var reading = false
        var counted: [String: Counted] = [:]
        var answered: [String: Answered] = [:]
    }

    /// APNs reasons for which the sender forgets a token (and a follower left with none).
    static let goneReasons: Set<String> = [
        APNsReason.unregistered.rawValue, APNsReason.badDeviceToken.rawValue,
        APNsReason.deviceTokenNotForTopic.rawValue,
        // An Android phone's FCM token, as AndroidFanOut names FCM's answers.
        "FCM UNREGISTERED", "FCM INVALID_ARGUMENT", "FCM NOT_FOUND",
    ]

    /// What the watch was made with.
    public let configuration: Configuration
    private let store: any FollowerStore
    private let logger: Logger
    private let state = Mutex(State())

    /// A watch over `store`'s followers and fan-outs; it reads nothing until asked.
    public init(
        store: any FollowerStore, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "liveline.bridge.audiences")
    ) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }

    /// The audiences as last read; starts a read in the background when that is older than
    /// ``Configuration/interval`` (one at a time).
    public func current(now: Millis = BridgeClock.now()) -> [AudienceStatus] {
        let interval = configuration.interval.millis
        let (statuses, due) = state.withLock { state in
            let stale = state.readAt.map { now - $0 >= interval || now < $0 } ?? true
            let due = stale && !state.reading
            if due { state.reading = true }
            return (state.statuses, due)
        }
        if due {
            Task {
                do {
                    try await self.refresh(now: BridgeClock.now())
                } catch {
                    // Tried again after the interval, not on every frame.
                    self.state.withLock { state in
                        state.reading = false
                        state.readAt = BridgeClock.now()
                    }
                    self.logger.warning(
                        "could not read the audiences for the dashboard", metadata: ["error": "\(error)"])
                }
            }
        }
        return statuses
    }

    /// Reads the store at `now` and keeps what it found for ``current(now:)``.
    @discardableResult
    public func refresh(now: Millis) async throws -> [AudienceStatus] {
        let keys = try await store.audienceKeys(limit: configuration.keys)
        let (counted, answered) = state.withLock { ($0.counted, $0.answered) }
        var statuses: [AudienceStatus] = []
        var newCounted: [String: Counted] = [:]
        var newAnswered: [String: Answered] = [:]
        for key in keys {
            var count = counted[key]
            if count.map({ now - $0.at >= configuration.countsInterval.millis || now < $0.at })
                ?? true
            {
                count = Counted(
                    counts: try await store.followerCounts(activityKey: key),
                    sample: try await store.sampleFollower(activityKey: key),
                    androidSample: try await store.sampleAndroidFollower(activityKey: key), at: now)
            }
            guard let count else { continue }
            newCounted[key] = count
            let fanOuts = try await store.fanOuts(activityKey: key, limit: 4)
            let summaries = try await store.fanOutFailures(activityKey: key, limit: 20)
            let byFanOut = Dictionary(fanOuts.map { ($0.id, $0.answered) }, uniquingKeysWith: max)
            newAnswered[key] = Answered(at: now, byFanOut: byFanOut)
            statuses.append(
                Self.status(
                    key: key, counted: count, fanOuts: fanOuts, summaries: summaries, previous: answered[key], now: now)
            )
        }
        // Fan-outs under way first, then the newest.
        statuses.sort { a, b in
            let running = (a.fanOut?.state == .running, b.fanOut?.state == .running)
            if running.0 != running.1 { return running.0 }
            return (a.fanOut?.createdAt ?? .min) > (b.fanOut?.createdAt ?? .min)
        }
        state.withLock { state in
            state.statuses = statuses
            state.readAt = now
            state.reading = false
            state.counted = newCounted
            state.answered = newAnswered
        }
        return statuses
    }

    private static func status(
        key: String, counted: Counted, fanOuts: [FanOutStatus], summaries: [FanOutFailureSummary], previous: Answered?,
        now: Millis
    ) -> AudienceStatus {
        let newest = fanOuts.first
        var status = AudienceStatus(
            activityKey: key, followers: counted.counts,
            removed: summaries.filter { goneReasons.contains($0.reason) }.reduce(0) { $0 + $1.count },
            sample: counted.sample, androidSample: counted.androidSample,
            fanOut: newest, contentState: newest.flatMap { contentState(of: $0.payload) }, audience: 0, failures: [:])
        guard let newest else { return status }
        let audience = newest.kind == .start ? counted.counts.awaitingStart : counted.counts.updating
        status.audience = max(audience, newest.answered)
        for summary in summaries where summary.fanOutID == newest.id {
            status.failures[summary.reason, default: 0] += summary.count
        }
        let end = newest.state == .running ? now : newest.finishedAt ?? now
        status.lagSeconds = newest.receivedAt.map { max(0, BridgeClock.seconds(from: $0, to: end)) }
        if newest.state == .running {
            if let previous, now > previous.at {
                // Answers since the last read, over every fan-out of the key still in the store
                // (an older one finishing its ranges counts too); one decided since counts whole.
                let delta = fanOuts.reduce(0) { sum, fanOut in
                    sum
                        + max(
                            0,
                            fanOut.answered
                                - (previous.byFanOut[fanOut.id]
                                    ?? (fanOut.createdAt >= previous.at ? 0 : fanOut.answered)))
                }
                status.pushesPerSecond = Double(delta) / BridgeClock.seconds(from: previous.at, to: now)
            }
        } else if let finished = newest.finishedAt, finished > newest.createdAt {
            status.pushesPerSecond = Double(newest.answered) / BridgeClock.seconds(from: newest.createdAt, to: finished)
        }
        return status
    }

    /// The payload's `aps.content-state`, compact, at most 160 characters.
    static func contentState(of payload: [UInt8]) -> String? {
        guard let root = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
            let aps = root["aps"] as? [String: Any], let state = aps["content-state"],
            let data = try? JSONSerialization.data(
                withJSONObject: state, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        return text.count > 160 ? String(text.prefix(159)) + "…" : text
    }
}
