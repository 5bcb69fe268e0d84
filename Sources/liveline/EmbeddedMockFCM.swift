import Foundation
import Liveline
import LivelineFCM
import LivelineMockFCM

/// The mock FCM that `play` and `load` start in-process when no FCM is named, as the mock APNs is
/// (``EmbeddedMock``): on loopback, on a port the system picks, TLS with a fresh self-signed
/// certificate (or plain), its phones running the app the scenarios' `android:` blocks describe;
/// with the service account, made by the mock, that the client signs in with.
enum EmbeddedMockFCM {
    /// A started mock and what a client needs to reach it.
    struct Started {
        let server: MockFCMServer
        let account: ServiceAccount
        /// The client's configuration: the mock's URL, trusting its certificate.
        func clientConfiguration(connections: Int = 1) -> FCMClient.Configuration {
            FCMClient.Configuration(
                account: account, url: server.baseURL, trustedCertificates: server.certificatePath,
                connections: connections)
        }
    }

    /// Starts the mock for `command` with phones running the app of `scenarios`' `android:` blocks.
    static func start(
        for command: String, scenarios: [Scenario], project: String, tls: Bool = true, threads: Int = 1,
        configure: (inout MockFCMConfiguration) -> Void = { _ in }
    ) async throws(EmbeddedMockError) -> Started {
        var configuration = MockFCMConfiguration()
        configuration.app = AndroidAppModel(serving: scenarios.flatMap(\.activities).compactMap(\.android))
        configuration.eventLoopThreads = max(1, threads)
        let certificate = FileManager.default.temporaryDirectory
            .appendingPathComponent("liveline-\(command)-fcm-\(ProcessInfo.processInfo.processIdentifier).pem").path
        configuration.transport = tls ? .tls(.selfSigned(writeCertificateTo: certificate)) : .plain
        configure(&configuration)
        do {
            let server = try await MockFCMServer.start(configuration)
            do {
                let account = try ServiceAccount(
                    json: try server.makeServiceAccount(project: project), source: "the mock FCM")
                return Started(server: server, account: account)
            } catch {
                await server.stop()
                throw error
            }
        } catch {
            throw EmbeddedMockError(server: "the embedded mock FCM", cause: "\(error)")
        }
    }
}
