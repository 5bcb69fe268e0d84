import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineTerminal

/// Where `liveline play` sends: an endpoint, the key to sign with, a target per activity and,
/// for the embedded mock, the mock itself (to show what the device shows).
struct Destination: Sendable {
    var endpoint: APNsEndpoint
    var key: SigningKey?
    var targets: [PushTarget]
    var mock: MockAPNsServer?
    var banner: String

    /// Starts the mock APNs in-process: TLS on loopback with a fresh self-signed certificate,
    /// JWTs checked against a fresh key, device tokens made up per activity, and the scenario's
    /// first states as the expected content-state shapes. With `dashboard`, the mock also serves
    /// the live dashboard there, with the scenario's names and presentation blocks.
    static func embeddedMock(
        scenario: Scenario, dashboard: (host: String, port: Int)? = nil
    ) async throws -> Destination {
        let key = try ThrowawayKey()
        var targets: [PushTarget] = []
        var byToken: [String: StateObject] = [:]
        var byType: [String: StateObject] = [:]
        var subscriptions: [String: [String]] = [:]
        var tokens: [String] = []
        for (index, activity) in scenario.activities.enumerated() {
            let token = Self.token(for: "\(scenario.name)/\(activity.name)/\(index)")
            tokens.append(token)
            let first = activity.firstState()
            byToken[token] = first
            byType[activity.attributesType] = byType[activity.attributesType] ?? first
            let start = activity.startBeat.flatMap { activity.beats[$0].start }
            switch start {
            case nil where activity.policy.renewal != nil:
                // The app started it; its renewals start successors by push, so the device has a
                // push-to-start token too.
                let startToken = Self.token(for: "\(scenario.name)/\(activity.name)/\(index)/push-to-start")
                byToken[startToken] = first
                targets.append(PushTarget(startToken: startToken, updates: .token(token)))
            case nil:
                targets.append(.device(token))
            case .inputPushChannel(let channel)?:
                subscriptions[channel, default: []] += []
                targets.append(PushTarget(startToken: token, updates: .channel(channel)))
            case .inputPushToken?, .plain?:
                targets.append(.pushToStart(token))
            }
        }
        let started: (server: MockAPNsServer, endpoint: APNsEndpoint)
        do {
            started = try await EmbeddedMock.start(for: "play") { configuration in
                configuration.authentication = .keys([key.providerKey])
                configuration.contentStateShapes = ContentStateShapes(byToken: byToken, byAttributesType: byType)
                configuration.subscriptions = subscriptions
                if let dashboard {
                    var settings = DashboardConfiguration(host: dashboard.host, port: dashboard.port)
                    settings.setting = "--dashboard-listen"
                    settings.describe(scenario, tokens: tokens)
                    configuration.dashboard = settings
                }
            }
        } catch {
            throw PlayError(message: "\(error)")
        }
        let (server, endpoint) = started
        return Destination(
            endpoint: endpoint, key: key.key, targets: targets, mock: server,
            banner: "embedded mock APNs \(server.baseURL)"
        )
    }

    /// A device token made up for the mock: 64 hex digits, the same for the same name.
    static func token(for name: String) -> String {
        var seed: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return HexText.encode(words: (0..<4).map { SeededRandom.hash(seed, UInt64($0)) })
    }

    /// The update token the mock gave the activity started with `startToken` that the device
    /// shows now: after a renewal, the successor's.
    static func updateToken(of startToken: String, in mock: MockAPNsServer) async -> String? {
        for _ in 0..<50 {
            if let token = current(startedWith: startToken, in: mock)?.updateToken { return token }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// The newest activity started with `startToken` that has not ended, else the newest one.
    static func current(startedWith startToken: String, in mock: MockAPNsServer) -> ActivitySnapshot? {
        let started = mock.activities().filter { $0.pushToStartToken == startToken }
        return started.last { $0.lifecycle == .active || $0.lifecycle == .stale } ?? started.last
    }

    /// What the mock's device shows for activity `index`.
    func deviceSnapshot(_ index: Int, in mock: MockAPNsServer) -> DeviceSnapshot? {
        guard targets.indices.contains(index) else { return nil }
        let target = targets[index]
        let snapshot: ActivitySnapshot?
        if let start = target.startToken, let started = Self.current(startedWith: start, in: mock) {
            // Started by push, or renewed: the activity the device shows now.
            snapshot = started
        } else if case .token(let token) = target.updates {
            snapshot = mock.activity(token: token)
        } else {
            snapshot = nil
        }
        guard let snapshot else { return nil }
        var state: StateObject?
        if let json = snapshot.contentState,
            case .object(let object)? = try? JSONParser.parse(Array(json.jsonText.utf8))
        {
            state = object
        }
        var alert: String?
        if let json = snapshot.lastAlert, case .object(let object)? = try? JSONParser.parse(Array(json.jsonText.utf8)) {
            alert = APSPayload.alertText(in: StateObject([("alert", .object(object))]))
        }
        let history = snapshot.updateToken.map { mock.pushes(token: $0) } ?? []
        return DeviceSnapshot(
            lifecycle: snapshot.lifecycle.rawValue, contentState: state, relevance: snapshot.relevanceScore,
            budgetRemaining: snapshot.budgetRemaining, problems: snapshot.lastReasons, lastAlert: alert,
            lastOutcome: history.last?.deliveries.first?.outcome.rawValue
        )
    }

    /// What the mock's device did with a delivered push, for line output.
    func deviceOutcome(_ event: DeliveryEvent, in mock: MockAPNsServer) -> String? {
        guard case .delivered(let activity, let push, let response, _, _) = event, targets.indices.contains(activity)
        else { return nil }
        let target = targets[activity]
        var keys: [String] = []
        switch (push.event, target.updates) {
        case (.start, _): keys = target.startToken.map { [$0] } ?? []
        case (_, .token(let token)): keys = [token]
        case (_, .channel(let channel, _)): keys = ["channel:" + channel]
        case (_, .reportedToken): break
        }
        if push.event != .start, let start = target.startToken {
            // Started by push, or renewed: the push went to one of the activities its start token started.
            keys += mock.activities().filter { $0.pushToStartToken == start }.compactMap(\.updateToken).reversed()
        }
        guard
            let record = keys.lazy.compactMap({ key in
                mock.pushes(token: key).last { $0.id == response.apnsID || $0.id == response.requestID }
            }).first
        else { return nil }
        let outcomes = record.deliveries.map { delivery in
            delivery.outcome.rawValue
                + (delivery.reasons.isEmpty ? "" : " (\(delivery.reasons.joined(separator: "; ")))")
        }
        return outcomes.isEmpty ? nil : outcomes.joined(separator: ", ")
    }
}
