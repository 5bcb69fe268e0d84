import Crypto
import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineMockTestSupport
import Logging
import NIOCore
import NIOPosix

/// A mock APNs over TLS on an ephemeral loopback port, verifying JWTs from a test key, and a
/// client that trusts its self-signed certificate.
struct MockSession {
    static let keyID = LoopbackMockAPNs.keyID
    static let teamID = LoopbackMockAPNs.teamID
    static let bundleID = "com.example.matchday"

    let server: MockAPNsServer
    let client: APNsClient
    let key: SigningKey

    static func start(
        connections: Int = 1, clientNow: (@Sendable () -> Int64)? = nil, clientLogger: Logger = APNsClient.silentLogger,
        configure: (inout MockAPNsConfiguration) -> Void = { _ in }
    ) async throws -> MockSession {
        let mock = try await LoopbackMockAPNs.start(.tlsVerifyingTokens, configure)
        let server = mock.server
        let key = try SigningKey(pem: mock.keyPEM, keyID: keyID, teamID: teamID)
        let endpoint = APNsEndpoint(
            host: "127.0.0.1", port: server.port, tls: true, trustedCertificates: server.certificatePath)
        let client: APNsClient
        if let clientNow {
            client = try APNsClient(
                configuration: .init(
                    endpoint: endpoint, connections: connections, signingKey: key, requestTimeout: .seconds(30)),
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: clientLogger, now: clientNow)
        } else {
            client = try APNsClient(
                configuration: .init(
                    endpoint: endpoint, connections: connections, signingKey: key, requestTimeout: .seconds(30)),
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: clientLogger)
        }
        return MockSession(server: server, client: client, key: key)
    }

    func stop() async {
        await client.shutdown()
        await server.shutdown()
    }

    /// A second client of this mock that signs with a key the mock does not know (its Key ID
    /// `ZZZZZZZZZZ`): every push is answered `403 InvalidProviderToken`. The caller shuts it down.
    func clientWithUnknownKey(logger: Logger = APNsClient.silentLogger) throws -> APNsClient {
        try APNsClient(
            configuration: .init(
                endpoint: client.configuration.endpoint,
                signingKey: try SigningKey(
                    pem: P256.Signing.PrivateKey().pemRepresentation, keyID: "ZZZZZZZZZZ", teamID: Self.teamID)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
    }

    /// A device token, 64 hex digits, different for each `seed`.
    static func token(_ seed: Int) -> String {
        var generator = SeededRandom.hash(0x746f_6b65, UInt64(seed))
        var hex = ""
        for _ in 0..<4 {
            hex += String(format: "%016llx", generator)
            generator = SeededRandom.mix(generator)
        }
        return hex
    }

    /// A push to `token` with a minimal valid payload.
    static func updateRequest(token: String, timestamp: Int64, priority: Priority = .low) -> APNsRequest {
        let payload = #"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"score":1}}}"#
        return .push(
            token: token,
            headers: PushHeaders(
                topic: LiveActivityTopic.topic(forBundleID: bundleID), priority: priority, expiration: 0),
            payload: Array(payload.utf8))
    }
}

/// Collects delivery events, from any thread.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [DeliveryEvent] = []

    func append(_ event: DeliveryEvent) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var all: [DeliveryEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    var delivered: [Push] {
        all.compactMap { if case .delivered(_, let push, _, _, _) = $0 { return push } else { return nil } }
    }

    var retries: Int { all.filter { if case .retrying = $0 { return true } else { return false } }.count }
    var superseded: Int { all.filter { if case .superseded = $0 { return true } else { return false } }.count }
}
