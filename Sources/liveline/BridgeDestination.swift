import Foundation
import Liveline
import LivelineAPNs
import LivelineBridge
import LivelineMockAPNs
import Logging
import NIOPosix

/// Where a running bridge pushes: its client, the embedded mock when that is the destination,
/// and the words the start banner gives it.
struct BridgeDestination {
    let client: APNsClient
    let mock: MockAPNsServer?
    let banner: String

    /// `logger`: the bridge's, so that its log shows the client's connections, GOAWAYs and
    /// token renewals beside its own lines.
    init(
        endpoint: APNsEndpoint, key: SigningKey?, banner: String, logger: Logger, mock: MockAPNsServer? = nil
    ) throws {
        client = try APNsClient(
            configuration: .init(endpoint: endpoint, signingKey: key),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger
        )
        self.mock = mock
        self.banner = banner
    }

    /// What the embedded mock's device shows for an activity's update token (the outcome of
    /// the last push, the lifecycle and the content-state), for the registry's `device`.
    var deviceView: DeviceView? {
        guard let mock else { return nil }
        return { activity in
            guard let token = activity.updateToken, let shown = mock.activity(token: token) else { return nil }
            var view = StateObject()
            if let delivery = mock.pushes(token: token).last?.deliveries.first {
                view["outcome"] = .string(delivery.outcome.rawValue)
                if !delivery.reasons.isEmpty { view["reasons"] = .array(delivery.reasons.map(StateValue.string)) }
            }
            view["lifecycle"] = .string(shown.lifecycle.rawValue)
            view["content-state"] = shown.contentState.flatMap { try? JSONParser.parse($0.jsonText) } ?? .null
            return view
        }
    }

    func shutdown() async {
        await client.shutdown()
        await mock?.shutdown()
    }
}
