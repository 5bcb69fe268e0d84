import Crypto
import Foundation
import LivelineAPNs
import LivelineMockAPNs

/// The mock APNs that `play`, `load` and `bridge serve` start in-process when no real target
/// is given: on loopback, on a port the system picks, with a fresh self-signed certificate (or
/// h2c), quiet. Each command adds only what is its own (keys, expected shapes, channel
/// subscribers, a dashboard).
enum EmbeddedMock {
    /// Starts the mock and returns it with the endpoint that reaches it.
    static func start(
        for command: String, tls: Bool = true, threads: Int = 1,
        configure: (inout MockAPNsConfiguration) -> Void = { _ in }
    ) async throws(EmbeddedMockError) -> (server: MockAPNsServer, endpoint: APNsEndpoint) {
        var configuration = MockAPNsConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let certificate = FileManager.default.temporaryDirectory
            .appendingPathComponent("liveline-\(command)-\(ProcessInfo.processInfo.processIdentifier).pem").path
        configuration.transport = tls ? .tls(.selfSigned(writeCertificateTo: certificate)) : .h2c
        configuration.eventLoopThreads = max(1, threads)
        configuration.logger.logLevel = .critical
        configure(&configuration)
        let server: MockAPNsServer
        do {
            server = try await MockAPNsServer.start(configuration)
        } catch {
            throw EmbeddedMockError(cause: "\(error)")
        }
        let endpoint = APNsEndpoint(
            host: "127.0.0.1", port: server.port, tls: server.usesTLS, trustedCertificates: server.certificatePath)
        return (server, endpoint)
    }
}

/// A key made for one run: the embedded mock trusts its public half, the client signs with it.
struct ThrowawayKey {
    let key: SigningKey
    let providerKey: ProviderKey

    init() throws(CredentialsError) {
        let privateKey = P256.Signing.PrivateKey()
        let keyID = "LIVELINE01", teamID = "LIVELINETM"
        key = try SigningKey(pem: privateKey.pemRepresentation, keyID: keyID, teamID: teamID)
        providerKey = ProviderKey(keyID: keyID, teamID: teamID, publicKey: privateKey.publicKey)
    }
}

/// An embedded mock could not start.
struct EmbeddedMockError: Error, CustomStringConvertible {
    /// Which: the embedded mock APNs, or FCM.
    var server = "the embedded mock APNs"
    var cause: String
    var description: String { "could not start \(server): \(cause)" }
}
