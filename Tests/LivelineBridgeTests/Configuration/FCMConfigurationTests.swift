import Foundation
import Liveline
import LivelineMockFCM
import Testing
@testable import LivelineBridge

/// `fcm:`: the service account read with the configuration, located errors for what is wrong.
@Suite struct FCMConfigurationTests {
    static func withFCM(_ fcm: String) -> String {
        ConfigurationErrorTests.valid.replacingOccurrences(
            of: "listen: 127.0.0.1:8080\n", with: "listen: 127.0.0.1:8080\nfcm:\n\(fcm)\n")
    }

    @Test func aServiceAccountIsReadWithItsProjectAndAddress() async throws {
        let mock = try await MockFCMServer.start(MockFCMConfiguration())
        defer { Task { await mock.stop() } }
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("liveline-fcm-config-\(UUID().uuidString).json").path
        try Data(try mock.makeServiceAccount(project: "fooddash-1234")).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }

        let plain = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: Self.withFCM("  service-account: \(path)"), file: testConfigurationFile)
        let settings = try #require(plain.fcm)
        #expect(settings.project == "fooddash-1234" && settings.url == "https://fcm.googleapis.com")
        #expect(settings.account.clientEmail.contains("@"))

        let named = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: Self.withFCM("  service-account: \(path)\n  project: other-5678\n  url: \(mock.baseURL)"),
            file: testConfigurationFile)
        #expect(named.fcm?.project == "other-5678" && named.fcm?.url == mock.baseURL)
        #expect(try loadExample().fcm == nil)
    }

    @Test func aMissingOrBadServiceAccountIsALocatedError() {
        expectConfigurationError(
            Self.withFCM("  project: fooddash-1234"), 4, 3,
            "fcm: needs 'service-account', the path of the Firebase project's service-account JSON")
        let errors = configurationErrors(Self.withFCM("  service-account: nowhere.json"))
        #expect(errors.count == 1 && errors.first?.location.line == 4, "\(errors)")
        #expect(errors.first?.message.hasPrefix("service-account 'nowhere.json': ") == true, "\(errors)")
        let unknown = configurationErrors(Self.withFCM("  service-acount: x.json"))
        #expect(unknown.contains { $0.message.contains("service-acount") }, "\(unknown)")
    }
}
