import Foundation
import Liveline
import LivelineAPNs
import LivelineBridge
import LivelineFCM
import LivelineMockAPNs
import LivelineMockFCM
import Logging
import NIOPosix

/// Where a running bridge pushes: a client per APNs environment it serves, the FCM client of
/// its Android followers, the embedded mocks when they are the destinations, and the words the
/// start banner gives them.
struct BridgeDestination {
    let clients: APNsClients
    let mock: MockAPNsServer?
    let mockFCM: MockFCMServer?
    let banner: String
    /// Where Android followers' messages go, for the start banner.
    let androidBanner: String?

    /// Clients for `environments`, each to its `endpoint`, signing with `key`. With `settings`
    /// (credentials in the configuration or the environment), every reload (SIGHUP) reads the
    /// key again; without them, `key` is for good. `logger`: the bridge's, so that its log shows
    /// the clients' connections, GOAWAYs and token renewals beside its own lines.
    init(
        endpoint: @escaping @Sendable (APNsEnvironment) -> APNsEndpoint, environments: [APNsEnvironment],
        defaultEnvironment: APNsEnvironment, key: SigningKey?, settings: APNsSettings?, banner: String,
        logger: Logger, mock: MockAPNsServer? = nil, fcm: AndroidDestination? = nil
    ) throws {
        let fixedKey = settings == nil ? key : nil
        clients = try APNsClients(defaultEnvironment: defaultEnvironment, fcm: fcm?.destination) {
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
        mockFCM = fcm?.mock
        self.banner = banner
        androidBanner = fcm?.banner
    }

    /// Where Android followers' messages go: FCM by the configuration's `fcm:`, or the embedded
    /// mock FCM (its phones running the app the sources' `android:` blocks describe).
    struct AndroidDestination {
        let destination: FCMDestination
        let mock: MockFCMServer?
        let banner: String

        static func connect(_ configuration: BridgeConfiguration) async throws -> AndroidDestination {
            if let settings = configuration.fcm {
                let client = try FCMClient(
                    configuration: .init(
                        account: settings.account, url: settings.url,
                        trustedCertificates: settings.caFile,
                        policy: FCMDestination.clientPolicy))
                return AndroidDestination(
                    destination: FCMDestination(client: client, project: settings.project), mock: nil,
                    banner: "FCM \(settings.url) (\(settings.project))")
            }
            let started = try await EmbeddedMockFCM.start(
                for: "bridge", scenarios: configuration.sources.map(\.scenario), project: "liveline-bridge")
            var clientConfiguration = started.clientConfiguration()
            clientConfiguration.policy = FCMDestination.clientPolicy
            do {
                let client = try FCMClient(configuration: clientConfiguration)
                return AndroidDestination(
                    destination: FCMDestination(client: client, project: "liveline-bridge"), mock: started.server,
                    banner: "embedded mock FCM \(started.server.baseURL) (no fcm: in the configuration)")
            } catch {
                await started.server.stop()
                throw error
            }
        }
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
        await mockFCM?.stop()
    }
}
