import Foundation
import Liveline
import LivelineAPNs
import Synchronization

/// The bridge's APNs clients: one per environment it sends to (one key usually serves both),
/// and the environment a token that names none goes to; and, beside them, where Android
/// followers' messages go (``fcm``), when the bridge sends to FCM.
///
/// With a ``Factory`` the clients can be made again (``reload()``, on SIGHUP): the key is read
/// again and new connections sign with it, while the old clients finish the requests they
/// have in flight and close a little later.
public final class APNsClients: Sendable {
    /// Makes a client for each environment, reading the key again.
    public typealias Factory = @Sendable () throws -> [APNsEnvironment: APNsClient]

    /// Where a token registered without an environment goes (`apns.environment`).
    public let defaultEnvironment: APNsEnvironment
    private let factory: Factory?
    private let current: Mutex<[APNsEnvironment: APNsClient]>
    /// Clients replaced by a reload and not yet shut down.
    private let retired = Mutex<[ObjectIdentifier: APNsClient]>([:])
    /// How long a replaced client keeps answering the requests it has in flight.
    private let retireAfter: Duration
    /// The FCM client Android followers' messages go through; nil: the bridge sends none.
    public let fcm: FCMDestination?

    /// Clients made by `factory` now, and again at each ``reload()``.
    public init(
        defaultEnvironment: APNsEnvironment, retireAfter: Duration = .seconds(15), fcm: FCMDestination? = nil,
        factory: @escaping Factory
    ) throws {
        self.defaultEnvironment = defaultEnvironment
        self.fcm = fcm
        self.factory = factory
        self.retireAfter = retireAfter
        current = Mutex(try factory())
    }

    /// These clients, for good.
    public init(
        _ clients: [APNsEnvironment: APNsClient], defaultEnvironment: APNsEnvironment, fcm: FCMDestination? = nil
    ) {
        self.defaultEnvironment = defaultEnvironment
        self.fcm = fcm
        factory = nil
        retireAfter = .zero
        current = Mutex(clients)
    }

    /// One client serving `environment`, the default.
    public convenience init(_ client: APNsClient, environment: APNsEnvironment = .sandbox, fcm: FCMDestination? = nil) {
        self.init([environment: client], defaultEnvironment: environment, fcm: fcm)
    }

    /// The environments there is a client for, in order.
    public var environments: [APNsEnvironment] { current.withLock { $0.keys.sorted() } }

    /// The environment a token of `environment` (nil: it named none) goes to.
    public func resolve(_ environment: APNsEnvironment?) -> APNsEnvironment { environment ?? defaultEnvironment }

    /// The client for `environment` (nil: the default's); nil when the bridge does not send there.
    public func client(for environment: APNsEnvironment?) -> APNsClient? {
        let environment = resolve(environment)
        return current.withLock { $0[environment] }
    }

    /// Whether ``reload()`` can make new clients.
    public var canReload: Bool { factory != nil }

    /// Makes new clients (the key read again) and puts them in place; the old ones close after
    /// their requests in flight had time to be answered. Throws, changing nothing, when the new
    /// ones cannot be made (a key file that is not there).
    public func reload() throws {
        guard let factory else { return }
        let fresh = try factory()
        let old = current.withLock { clients in
            defer { clients = fresh }
            return Array(clients.values)
        }
        retired.withLock { retired in
            for client in old { retired[ObjectIdentifier(client)] = client }
        }
        let wait = retireAfter
        Task {
            try? await Task.sleep(for: wait)
            for client in old {
                if let client = self.retired.withLock({ $0.removeValue(forKey: ObjectIdentifier(client)) }) {
                    await client.shutdown()
                }
            }
        }
    }

    /// Closes every client (once, however many environments share it), those a reload
    /// replaced included, and the FCM client.
    public func shutdown() async {
        var clients: [ObjectIdentifier: APNsClient] = [:]
        for client in current.withLock({ Array($0.values) }) { clients[ObjectIdentifier(client)] = client }
        retired.withLock { retired in
            clients.merge(retired) { first, _ in first }
            retired = [:]
        }
        for client in clients.values { await client.shutdown() }
        await fcm?.client.shutdown()
    }
}
