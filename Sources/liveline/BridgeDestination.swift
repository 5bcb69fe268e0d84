import Foundation
import Liveline
import LivelineAPNs
import LivelineBridge
import LivelineMockAPNs
import Logging
import NIOPosix

/// Where a running bridge pushes: a client per APNs environment it serves, the embedded mock
/// when that is the destination, and the words the start banner gives it.
struct BridgeDestination {
    let clients: APNsClients
    let mock: MockAPNsServer?
    let banner: String

    /// Clients for `environments`, each to its `endpoint`, signing with `key`. With `settings`
    /// (credentials in the configuration or the environment), every reload (SIGHUP) reads the
    /// key again; without them, `key` is for good. `logger`: the bridge's, so that its log shows
    /// the clients' connections, GOAWAYs and token renewals beside its own lines.
    init(
        endpoint: @escaping @Sendable (APNsEnvironment) -> APNsEndpoint, environments: [APNsEnvironment],
        defaultEnvironment: APNsEnvironment, key: SigningKey?, settings: APNsSettings?, banner: String,
        logger: Logger, mock: MockAPNsServer? = nil
    ) throws {
        let fixedKey = settings == nil ? key : nil
        clients = try APNsClients(defaultEnvironment: defaultEnvironment) {
            let signingKey = try settings.map { try $0.signingKey(environment: ProcessInfo.processInfo.environment) }
            var clients: [APNsEnvironment: APNsClient] = [:]
            for environment in environments {
                clients[environment] = try APNsClient(
                    configuration: .init(endpoint: endpoint(environment), signingKey: signingKey ?? fixedKey),
                    eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
            }
            return clients
        }
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
        await clients.shutdown()
        await mock?.shutdown()
    }
}
