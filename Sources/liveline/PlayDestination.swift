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

    /// The update token the mock gave an activity started with `startToken`.
    static func updateToken(of startToken: String, in mock: MockAPNsServer) async -> String? {
        for _ in 0..<50 {
            if let token = mock.activities().first(where: { $0.pushToStartToken == startToken && $0.updateToken != nil }
            )?.updateToken {
                return token
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// What the mock's device shows for activity `index`.
    func deviceSnapshot(_ index: Int, in mock: MockAPNsServer) -> DeviceSnapshot? {
        guard targets.indices.contains(index) else { return nil }
        let target = targets[index]
        let snapshot: ActivitySnapshot?
        if let start = target.startToken {
            snapshot = mock.activities().first { $0.pushToStartToken == start }
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
        let key: String?
        switch (push.event, targets[activity].updates) {
        case (.start, _): key = targets[activity].startToken
        case (_, .token(let token)): key = token
        case (_, .channel(let channel, _)): key = "channel:" + channel
        case (_, .reportedToken):
            key = mock.activities().first { $0.pushToStartToken == targets[activity].startToken }?.updateToken
        }
        guard let key,
            let record = mock.pushes(token: key).last(where: { $0.id == response.apnsID || $0.id == response.requestID }
            )
        else { return nil }
        let outcomes = record.deliveries.map { delivery in
            delivery.outcome.rawValue
                + (delivery.reasons.isEmpty ? "" : " (\(delivery.reasons.joined(separator: "; ")))")
        }
        return outcomes.isEmpty ? nil : outcomes.joined(separator: ", ")
    }
}
