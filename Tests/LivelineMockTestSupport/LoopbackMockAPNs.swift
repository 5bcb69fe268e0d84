import Crypto
import Foundation
import LivelineMockAPNs
import Logging

/// A mock APNs for a test: on an ephemeral loopback port, one event loop, quiet logs, and
/// either TLS with a self-signed certificate (written to a temporary file a client trusts) or
/// h2c. With TLS it verifies provider tokens against a key made for it (``keyPEM``, under
/// ``keyID`` and ``teamID``), or accepts any. The one way tests start the mock; what a test
/// needs beyond this (a clock, faults, subscriptions) it sets in `configure`.
public struct LoopbackMockAPNs: Sendable {
    /// How clients reach the mock and what it asks of their tokens.
    public enum Security: Sendable {
        /// TLS, and ES256 provider tokens checked against ``LoopbackMockAPNs/keyPEM``.
        case tlsVerifyingTokens
        /// TLS, and any token or none.
        case tlsAcceptingAnyToken
        /// HTTP/2 in cleartext with prior knowledge, and any token or none.
        case h2c
    }

    public static let keyID = "ABC123DEFG"
    public static let teamID = "DEF123GHIJ"

    public let server: MockAPNsServer
    /// The private provider key the mock verifies tokens against (with `.tlsVerifyingTokens`),
    /// as PEM: what a user's `.p8` holds.
    public let keyPEM: String

    public var port: Int { server.port }
    /// The self-signed certificate's PEM file, for a client to trust; nil over h2c.
    public var certificatePath: String? { server.certificatePath }

    /// Starts a mock; `configure` changes the configuration last.
    public static func start(
        _ security: Security, logLevel: Logger.Level = .critical,
        _ configure: (inout MockAPNsConfiguration) -> Void = { _ in }
    ) async throws -> LoopbackMockAPNs {
        let privateKey = P256.Signing.PrivateKey()
        var configuration = MockAPNsConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.eventLoopThreads = 1
        configuration.logger.logLevel = logLevel
        switch security {
        case .h2c:
            configuration.transport = .h2c
            configuration.authentication = .acceptAnyToken
        case .tlsVerifyingTokens, .tlsAcceptingAnyToken:
            let certificate = FileManager.default.temporaryDirectory.appendingPathComponent(
                "liveline-mock-\(UUID().uuidString).pem"
            ).path
            configuration.transport = .tls(.selfSigned(writeCertificateTo: certificate))
            configuration.authentication =
                security == .tlsVerifyingTokens
                ? .keys([ProviderKey(keyID: keyID, teamID: teamID, publicKey: privateKey.publicKey)])
                : .acceptAnyToken
        }
        configure(&configuration)
        return LoopbackMockAPNs(
            server: try await MockAPNsServer.start(configuration), keyPEM: privateKey.pemRepresentation)
    }

    /// Stops the mock.
    public func shutdown() async {
        await server.shutdown()
    }
}
