import Foundation
import HTTPTypes
import Liveline
import Logging
import NIOCore
import NIOPosix

/// Reads one stream source for as long as the bridge runs, and feeds every event through the
/// same mapping and the same durable, deduplicated inbox as webhooks.
///
/// The loop:
/// 1. **Connect** (`StreamConnection`): a GET with the source's headers; for SSE, the last
///    event id as `Last-Event-ID`.
/// 2. **Recover** after a gap, before going live: while the new connection holds what arrives,
///    the recover URL gives what was missed since the last stored event (a bridge that starts
///    with events of this source in its store starts with a gap too, and one that starts with
///    none recovers the recover settings' `on-start` window: the feed may have published before
///    the bridge connected). Recovered events are
///    stored first, then the live ones: an older event stored after a newer one was applied
///    would be superseded, and a goal lost.
/// 3. **Live.** Each event is mapped and stored through ``InboxWriter`` (deduplicated by event
///    id, so an event that both the timeline and the stream carry is stored once); heartbeats
///    and keep-alives only prove the connection alive.
/// 4. **Silence** past the heartbeat timeout, a closed connection, a refusal (a 401 is a
///    configuration problem, logged as an error and still retried) or a store failure end the
///    connection with a ``StreamError`` that keeps its cause. The client waits a jittered
///    back-off (doubling while attempts fail, from the start again after a connection that
///    carried data) and goes back to 1.
///
/// ``run()`` returns when its task is cancelled (the bridge's graceful shutdown).
public final class StreamClient: Sendable {
    /// The source whose rules map the stream's events.
    public let source: SourceConfiguration
    /// Where the stream is and how it is read.
    public let settings: StreamSettings
    private let ingest: StreamIngest
    private let store: any InboxStore
    private let metrics: BridgeMetrics
    private let logger: Logger
    private let group: any EventLoopGroup
    private let maximumMessage: Int
    private let random: @Sendable () -> Double

    /// The most activities a stream remembers following, for per-activity recovery.
    static let followedActivities = 1000
    /// How often one gap's recovery is tried before the stream goes live without it.
    static let recoveryAttempts = 3
    /// The largest recovery answer read (a whole match's timeline is a few hundred KiB).
    static let maximumRecoveryAnswer = 16 << 20

    /// Nil when `source` is not a stream.
    /// - Parameters:
    ///   - source: a source with ``SourceConfiguration/stream`` settings.
    ///   - inbox: the bridge's shared writer, so stream events share commits with webhooks.
    ///   - store: where a restart finds the last event of this source, to recover from.
    ///   - metrics: where the stream's connections, events and gaps are counted.
    ///   - logger: where connections, gaps and unreadable messages are logged.
    ///   - bodyLimit: the largest message accepted; larger ones are skipped and logged.
    ///   - wake: rung after an event is stored, so the dispatcher looks at once.
    ///   - clock: the time of receipt; the wall clock by default.
    ///   - group: the event loops the connection runs on.
    ///   - random: draws in 0..<1 for the back-off's jitter.
    public init?(
        source: SourceConfiguration, inbox: InboxWriter, store: any InboxStore, metrics: BridgeMetrics, logger: Logger,
        bodyLimit: Int = BridgeConfiguration.standardBodyLimit, wake: @escaping @Sendable () -> Void,
        clock: @escaping @Sendable () -> Millis = BridgeClock.now,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        guard let settings = source.stream else { return nil }
        self.source = source
        self.settings = settings
        ingest = StreamIngest(source: source, inbox: inbox, wake: wake, clock: clock)
        self.store = store
        self.metrics = metrics
        var logger = logger
        logger[metadataKey: "source"] = .string(source.name)
        self.logger = logger
        self.group = group
        maximumMessage = bodyLimit
        self.random = random
    }

    /// What the loop knows of where the stream stands.
    private struct Position {
        /// The id of the last event stored (the rules' event id), for `{last-event-id}`.
        var lastEventID: String?
        /// When it was received, for `{since}`.
        var lastEventAt: Millis?
        /// The last SSE `id:`, sent back as `Last-Event-ID`.
        var sseLastEventID: String?
        /// When a connection last came up, for `{since}` when no event came before a gap.
        var connectedAt: Millis?
        /// On a first start (no event of the source stored): how far back to recover, for
        /// `{since}` before any connection came up.
        var startFrom: Millis?
        /// Activities the stream has delivered events for, newest last.
        var activities: [String] = []

        mutating func follow(_ key: String) {
            if activities.last == key { return }
            activities.removeAll { $0 == key }
            activities.append(key)
            if activities.count > StreamClient.followedActivities { activities.removeFirst() }
        }
    }

    /// Reads the stream until the task is cancelled.
    public func run() async {
        metrics.streamConnected(source: source.name, false)
        var position = Position()
        var startsWithGap = false
        if let recover = settings.recover {
            do {
                if let stored = try await store.sourcePosition(source.name, activityLimit: Self.followedActivities) {
                    // A restart: from the last event stored.
                    position.lastEventID = stored.lastEventID
                    position.lastEventAt = stored.lastReceivedAt
                    position.activities = stored.openActivityKeys.reversed()
                    startsWithGap = true
                } else if let window = recover.startWindow {
                    // A first start: what the feed published before the bridge connected.
                    position.startFrom = ingest.clock() - window.millis
                    startsWithGap = true
                }
            } catch {
                logger.warning(
                    "could not read where the stream stopped; events missed while the bridge was down are not recovered",
                    metadata: ["error": "\(error)"])
            }
        }
        logger.info(
            "stream starting",
            metadata: [
                "url": "\(settings.url)", "format": "\(settings.format.rawValue)",
                "heartbeat-timeout": "\(DurationText.format(settings.heartbeatTimeout.millis))",
            ])
        var reconnection = StreamReconnection(
            backoff: settings.reconnect, recovers: settings.recover != nil, startsWithGap: startsWithGap)
        while !Task.isCancelled {
            let (ended, carriedData) = await connectAndRead(&position, &reconnection)
            metrics.streamConnected(source: source.name, false)
            guard let ended, !Task.isCancelled else { return }
            metrics.streamReconnect(source: source.name, reason: ended.metricReason)
            let delay = reconnection.connectionEnded(carriedData: carriedData, unit: random())
            let metadata: Logger.Metadata = ["error": "\(ended)", "retry-in": "\(DurationText.format(delay))"]
            if ended.isConfigurationProblem {
                logger.error("stream refused: check the source's configuration", metadata: metadata)
            } else {
                logger.warning("stream lost; reconnecting", metadata: metadata)
            }
            try? await Task.sleep(for: .milliseconds(delay))
        }
    }

    /// One connection: connect, recover a gap (when `reconnection` says so), read until it
    /// ends. Returns why it ended (nil when cancelled) and whether it carried anything.
    private func connectAndRead(
        _ position: inout Position, _ reconnection: inout StreamReconnection
    ) async -> (StreamError?, Bool) {
        let request = StreamConnection.Request(
            url: settings.url, headers: settings.headers, format: settings.format, lastEventID: position.sseLastEventID,
            heartbeatTimeout: settings.heartbeatTimeout.millis, maximumMessage: maximumMessage, caFile: settings.caFile)
        let connection: StreamConnection
        do {
            connection = try await StreamConnection.open(request, group: group)
        } catch {
            return (Task.isCancelled ? nil : error, false)
        }
        defer { connection.close() }
        metrics.streamConnected(source: source.name, true)
        logger.info("stream connected", metadata: ["url": "\(settings.url)"])
        do throws(StreamError) {
            if reconnection.recoversGap { try await recoverGap(&position) }
        } catch {
            return (error, false)
        }
        position.connectedAt = ingest.clock()
        var carriedData = false
        do {
            for try await message in connection.messages {
                carriedData = true
                switch message {
                case .keepAlive:
                    continue
                case .retry(let millis):
                    reconnection.serverAsked(retry: millis)
                case .tooLarge(let bytes):
                    logger.error(
                        "stream message skipped: over the body-limit",
                        metadata: ["bytes": "\(bytes)", "limit": "\(maximumMessage)"])
                    metrics.streamEvent(source: source.name, type: "other", result: .unmappable)
                case .event(let body, let fields):
                    if let id = fields["sse-id"] { position.sseLastEventID = id }
                    if isKeepAlive(body) { continue }
                    try await handle(body, fields: fields, &position, recovered: false)
                }
            }
        } catch let error as StreamError {
            return (error, carriedData)
        } catch {
            return (.closed(url: settings.url, cause: "\(error)"), carriedData)
        }
        return (Task.isCancelled ? nil : .ended(url: settings.url), carriedData)
    }

    /// Maps and stores one event; a store failure ends the connection (the event is recovered
    /// after the reconnect).
    private func handle(
        _ body: [UInt8], fields: [String: String], _ position: inout Position, recovered: Bool
    ) async throws(StreamError) {
        let outcome: StreamIngest.Outcome
        do {
            outcome = try await ingest.ingest(body: body, fields: fields)
        } catch {
            logger.error("stream event not stored", metadata: ["error": "\(error)"])
            throw .storeFailed(url: settings.url, cause: "\(error)")
        }
        switch outcome {
        case .stored(let mapped, let receivedAt, let ignored):
            note(mapped, receivedAt: receivedAt, &position)
            metrics.streamEvent(
                source: source.name, type: typeLabel(mapped.eventType), result: ignored ? .ignored : .stored)
            if logger.logLevel <= .info {
                logger.info(
                    recovered ? "stream event recovered" : "stream event stored",
                    metadata: [
                        "event": .string(mapped.eventID), "type": .string(mapped.eventType),
                        "activity": .string(mapped.activityKey),
                    ])
            }
        case .duplicate(let mapped, let receivedAt):
            if !recovered { note(mapped, receivedAt: receivedAt, &position) }
            metrics.streamEvent(source: source.name, type: typeLabel(mapped.eventType), result: .duplicate)
        case .unmappable(let error):
            metrics.streamEvent(source: source.name, type: "other", result: .unmappable)
            logger.warning(
                "stream event does not fit the source's rules; skipped", metadata: ["reason": .string(error.reason)])
        }
    }

    private func note(_ mapped: MappedEvent, receivedAt: Millis, _ position: inout Position) {
        position.lastEventID = mapped.eventID
        position.lastEventAt = receivedAt
        position.follow(mapped.activityKey)
    }

    /// Fetches and stores what the gap cost, trying each fetch a few times; after that the
    /// stream goes live anyway, with an error saying what may be missing.
    private func recoverGap(_ position: inout Position) async throws(StreamError) {
        guard let recover = settings.recover else { return }
        let since = position.lastEventAt ?? position.connectedAt ?? position.startFrom
        guard position.lastEventID != nil || since != nil else { return }
        let recovery = GapRecovery(
            settings: recover, headers: settings.headers, caFile: settings.caFile,
            maximumAnswer: Self.maximumRecoveryAnswer)
        let keys: [String?] = recover.isPerActivity ? position.activities.reversed() : [nil]
        // A per-activity timeline with no activity followed yet has nothing to give.
        guard !keys.isEmpty else { return }
        let lastEventID = position.lastEventID
        var recovered = 0
        var failures: [String] = []
        for key in keys {
            var bodies: [[UInt8]]?
            for attempt in 0..<Self.recoveryAttempts {
                do throws(StreamError) {
                    bodies = try await recovery.fetch(lastEventID: lastEventID, since: since, activityKey: key)
                    break
                } catch {
                    if attempt == Self.recoveryAttempts - 1 {
                        failures.append(error.description)
                    } else {
                        logger.warning("gap recovery failed; trying again", metadata: ["error": "\(error)"])
                        try? await Task.sleep(
                            for: .milliseconds(settings.reconnect.delay(attempt: attempt, unit: random())))
                    }
                }
                if Task.isCancelled { return }
            }
            for body in bodies ?? [] where !isKeepAlive(body) {
                try await handle(body, fields: [:], &position, recovered: true)
                recovered += 1
            }
        }
        let sinceText = since.map(UTCTime.format) ?? "?"
        if failures.isEmpty {
            metrics.streamGapRecovery(source: source.name, result: "recovered")
            logger.info("gap recovered", metadata: ["since": .string(sinceText), "events": "\(recovered)"])
        } else {
            metrics.streamGapRecovery(source: source.name, result: "failed")
            logger.error(
                "gap not recovered: events since then may be missing",
                metadata: [
                    "since": .string(sinceText), "error": .string(failures.joined(separator: "; ")),
                ])
        }
    }

    /// Whether a message is a heartbeat by the source's `keep-alive` pointer.
    private func isKeepAlive(_ body: [UInt8]) -> Bool {
        guard let pointer = settings.keepAlive, let document = try? JSONParser.parse(body) else { return false }
        return pointer.resolve(in: document) != nil
    }

    /// A configured event type, or `other`, for the metric's label.
    private func typeLabel(_ type: String) -> String {
        source.events[type] != nil ? type : "other"
    }
}
