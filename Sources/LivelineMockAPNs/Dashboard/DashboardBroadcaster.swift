import Liveline
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Sends dashboard frames to the connected pages, a few times a second at most.
///
/// Pushes are never forwarded one by one: a tick (every ``DashboardConfiguration/frameInterval``)
/// reads what changed since the last tick and makes one frame per distinct search, which every
/// page with that search gets. A page whose connection is still busy with an earlier frame is
/// skipped until it catches up (its frames coalesce), so a slow page costs the mock nothing.
/// Without pages connected a tick does nothing. A change in the audiences (``DashboardAudienceSource``)
/// makes a frame too. When nothing changed, a page gets a frame once a second, which keeps
/// countdowns and the connection alive.
final class DashboardBroadcaster: Sendable {
    private struct Client {
        let channel: any Channel
        let query: String
        var sentSequence: UInt64?
        var sentRevision = 0
        var sentAudiences: Int?
        var sentAt: Millis = 0
    }

    /// The timeline as the pages see it, converted once per push.
    private struct Timeline {
        var seenSequence: UInt64 = 0
        var recent: [DashboardPush] = []
        var notable: [DashboardPush] = []
        /// Plan reasons by apns-id, from ``annotate(id:reason:)``; bounded, oldest dropped.
        var planReasons: [String: String] = [:]
        var planReasonOrder: [String] = []
        /// Moves when an annotation changes a push already shown.
        var revision = 0
    }

    static let timelineLength = 40
    static let maxPlanReasons = 4096
    static let idleFrameInterval: Millis = 1000

    private let state: MockAPNsState
    private let configuration: DashboardConfiguration
    private let budgetPerHour: Int
    private let clients = NIOLockedValueBox<[ObjectIdentifier: Client]>([:])
    private let timeline = NIOLockedValueBox(Timeline())

    init(state: MockAPNsState, configuration: DashboardConfiguration, budgetPerHour: Int) {
        self.state = state
        self.configuration = configuration
        self.budgetPerHour = budgetPerHour
    }

    // MARK: Pages

    /// Starts sending frames to `channel`, whose SSE response head is already written.
    func add(_ channel: any Channel, query: String) {
        clients.withLockedValue { $0[ObjectIdentifier(channel)] = Client(channel: channel, query: query) }
    }

    func remove(_ channel: any Channel) {
        _ = clients.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    var clientCount: Int { clients.withLockedValue { $0.count } }

    /// Remembers why the push `id` was sent, for its timeline row.
    func annotate(id: String, reason: String) {
        timeline.withLockedValue { timeline in
            if timeline.planReasons.updateValue(reason, forKey: id) == nil {
                timeline.planReasonOrder.append(id)
                if timeline.planReasonOrder.count > Self.maxPlanReasons {
                    let count = Self.maxPlanReasons / 4
                    for old in timeline.planReasonOrder.prefix(count) { timeline.planReasons.removeValue(forKey: old) }
                    timeline.planReasonOrder.removeFirst(count)
                }
            }
            for index in timeline.recent.indices where timeline.recent[index].id == id {
                timeline.recent[index].planReason = reason
                timeline.revision += 1
            }
            for index in timeline.notable.indices where timeline.notable[index].id == id {
                timeline.notable[index].planReason = reason
                timeline.revision += 1
            }
        }
    }

    // MARK: Frames

    /// One tick: a frame for each page that is due and ready for one.
    func tick() {
        let (due, audiences) = dueClients()
        guard !due.isEmpty else { return }
        let audiencesHash = audiences.hashValue
        let (recent, notable, revision) = refreshTimeline()
        var frames: [String: (bytes: [UInt8], sequence: UInt64)] = [:]
        var sent: [(ObjectIdentifier, UInt64)] = []
        let now = state.clock.now()
        for client in due {
            let frame: (bytes: [UInt8], sequence: UInt64)
            if let made = frames[client.query] {
                frame = made
            } else {
                frame = makeFrame(query: client.query, recent: recent, notable: notable, audiences: audiences)
                frames[client.query] = frame
            }
            var buffer = client.channel.allocator.buffer(capacity: frame.bytes.count)
            buffer.writeBytes(frame.bytes)
            client.channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
            sent.append((ObjectIdentifier(client.channel), frame.sequence))
        }
        clients.withLockedValue { clients in
            for (id, sequence) in sent {
                clients[id]?.sentSequence = sequence
                clients[id]?.sentRevision = revision
                clients[id]?.sentAudiences = audiencesHash
                clients[id]?.sentAt = now
            }
        }
    }

    /// One frame for `query`, as `GET /frame` answers it.
    func frame(query: String) -> [UInt8] {
        let (recent, notable, _) = refreshTimeline()
        return makeFrame(query: query, recent: recent, notable: notable, audiences: currentAudiences()).bytes
    }

    /// The pages due a frame (pushes landed, annotations or audiences changed, or a second
    /// passed), with the audiences now; nothing is asked without pages.
    private func dueClients() -> (clients: [Client], audiences: [DashboardAudience]) {
        let all = clients.withLockedValue { Array($0.values) }
        guard !all.isEmpty else { return ([], []) }
        let sequence = state.dashboardSequence()
        let revision = timeline.withLockedValue { $0.revision }
        let audiences = currentAudiences()
        let audiencesHash = audiences.hashValue
        let now = state.clock.now()
        let due = all.filter { client in
            guard client.channel.isActive, client.channel.isWritable else { return false }
            return client.sentSequence != sequence || client.sentRevision != revision
                || client.sentAudiences != audiencesHash
                || now - client.sentAt >= Self.idleFrameInterval
        }
        return (due, audiences)
    }

    private func currentAudiences() -> [DashboardAudience] {
        configuration.audiences?.dashboardAudiences() ?? []
    }

    /// Takes the pushes answered since the last refresh into the timeline.
    private func refreshTimeline() -> (recent: [DashboardPush], notable: [DashboardPush], revision: Int) {
        let seen = timeline.withLockedValue { $0.seenSequence }
        let (recentEntries, notableEntries) = state.dashboardFeed(after: seen)
        let configuration = self.configuration
        func convert(_ entries: [DashboardFeed.Entry]) -> [DashboardPush] {
            entries.suffix(Self.timelineLength).map { entry in
                let tokens = entry.record.token.map { [$0] } ?? []
                let names = tokens + entry.record.deliveries.compactMap(\.updateToken)
                return DashboardPush(entry, name: configuration.name(tokens: names))
            }
        }
        let newRecent = convert(recentEntries)
        let newNotable = convert(notableEntries)
        return timeline.withLockedValue { timeline in
            for var push in newRecent where push.sequence > timeline.seenSequence {
                push.planReason = timeline.planReasons[push.id]
                timeline.recent.append(push)
            }
            for var push in newNotable where push.sequence > timeline.seenSequence {
                push.planReason = timeline.planReasons[push.id]
                timeline.notable.append(push)
            }
            if timeline.recent.count > Self.timelineLength {
                timeline.recent.removeFirst(timeline.recent.count - Self.timelineLength)
            }
            if timeline.notable.count > Self.timelineLength {
                timeline.notable.removeFirst(timeline.notable.count - Self.timelineLength)
            }
            timeline.seenSequence = max(
                timeline.seenSequence, newRecent.last?.sequence ?? 0, newNotable.last?.sequence ?? 0)
            return (timeline.recent, timeline.notable, timeline.revision)
        }
    }

    private func makeFrame(
        query: String, recent: [DashboardPush], notable: [DashboardPush], audiences: [DashboardAudience]
    ) -> (bytes: [UInt8], sequence: UInt64) {
        let search = DashboardSearch(query: query, names: configuration.names)
        let selection = state.dashboardSelection(limit: configuration.shownActivities, search: search)
        let audienceViews = audiences.map { audience in
            DashboardAudienceView(
                audience: audience, sample: audience.sampleToken.flatMap { state.activity(token: $0) }.map(drawn))
        }
        let frame = DashboardFrame(
            now: selection.now, query: query, total: selection.total, matched: selection.matched,
            lifecycles: selection.lifecycles, outcomes: selection.outcomes, requests: selection.stats.requests,
            statuses: selection.stats.statuses, reasons: selection.stats.reasons,
            duplicateStarts: selection.stats.duplicateStarts, budgetPerHour: budgetPerHour,
            activities: selection.activities.map(drawn), timeline: recent, notable: notable, audiences: audienceViews)
        return (frame.eventBytes(), selection.sequence)
    }

    /// An activity with its name and how to draw it, from the scenario.
    private func drawn(_ snapshot: ActivitySnapshot) -> DashboardActivity {
        let tokens = [snapshot.updateToken, snapshot.pushToStartToken, Optional(snapshot.id)].compactMap { $0 }
        return DashboardActivity(
            name: configuration.name(tokens: tokens),
            presentation: configuration.presentation(tokens: tokens, attributesType: snapshot.attributesType),
            scenarioAttributes: snapshot.attributes == nil
                ? configuration.attributes(tokens: tokens, attributesType: snapshot.attributesType) : nil,
            activity: snapshot)
    }
}
