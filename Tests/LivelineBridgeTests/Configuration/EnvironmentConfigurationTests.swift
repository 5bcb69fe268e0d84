import Crypto
import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// What the environment gives a configuration (a container sets variables rather than edit
/// its file): the listen address, and the APNs credentials with `LIVELINE_APNS_*`, each
/// replacing its key of `apns:` or standing alone; values of the wrong shape are located,
/// in the file or by their variable.
@Suite struct EnvironmentConfigurationTests {
    static let base = ConfigurationErrorTests.valid

    /// A key file for the test, removed by the caller.
    static func keyFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString).p8").path
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func load(_ yaml: String, _ environment: [String: String]) throws -> BridgeConfiguration {
        try BridgeConfigurationLoader(environment: environment).load(yaml: yaml, file: testConfigurationFile)
    }

    @Test func theListenAddressFromTheEnvironmentWinsOverTheFile() throws {
        let configuration = try load(Self.base, ["LIVELINE_BRIDGE_LISTEN": "0.0.0.0:9090"])
        #expect(configuration.listen == ListenAddress(host: "0.0.0.0", port: 9090))
        expectConfigurationError(
            Self.base, 1, 1,
            "LIVELINE_BRIDGE_LISTEN=everywhere is not host:port, like 0.0.0.0:8080 or [::1]:8080 (it replaces the file's listen)",
            environment: ["LIVELINE_BRIDGE_LISTEN": "everywhere"])
    }

    @Test func credentialsFromTheEnvironmentAloneMakeAnAPNsSection() throws {
        let key = try Self.keyFile()
        defer { try? FileManager.default.removeItem(atPath: key) }
        let configuration = try load(
            Self.base,
            [
                "LIVELINE_APNS_KEY_FILE": key, "LIVELINE_APNS_KEY_ID": "ABC123DEFG",
                "LIVELINE_APNS_TEAM_ID": "DEF123GHIJ",
                "LIVELINE_APNS_TOPIC": "com.example.app", "LIVELINE_APNS_ENVIRONMENT": "production",
            ])
        #expect(
            configuration.apns
                == APNsSettings(
                    key: .file(key), keyID: "ABC123DEFG", teamID: "DEF123GHIJ", topic: "com.example.app",
                    environment: .production))
        let pem = try load(
            Self.base,
            [
                "LIVELINE_APNS_KEY": "-----BEGIN PRIVATE KEY-----…", "LIVELINE_APNS_KEY_ID": "ABC123DEFG",
                "LIVELINE_APNS_TEAM_ID": "DEF123GHIJ",
            ])
        #expect(pem.apns?.key == .environment("LIVELINE_APNS_KEY"))
        #expect(pem.apns?.environment == .sandbox)
        // Topic and environment alone are no credentials.
        #expect(try load(Self.base, ["LIVELINE_APNS_TOPIC": "com.example.app"]).apns == nil)
        expectConfigurationError(
            Self.base, 1, 1,
            "the APNs credentials from the environment are incomplete: set LIVELINE_APNS_TEAM_ID (the Apple developer Team ID) as well, or unset the LIVELINE_APNS_* variables to push to the embedded mock",
            environment: ["LIVELINE_APNS_KEY_FILE": key, "LIVELINE_APNS_KEY_ID": "ABC123DEFG"])
        expectConfigurationError(
            Self.base, 1, 1, "LIVELINE_APNS_KEY_FILE=/nonexistent.p8: the APNs key file does not exist",
            environment: [
                "LIVELINE_APNS_KEY_FILE": "/nonexistent.p8", "LIVELINE_APNS_KEY_ID": "ABC123DEFG",
                "LIVELINE_APNS_TEAM_ID": "DEF123GHIJ",
            ])
    }

    /// A deployment keeps one file and sets what differs: each variable replaces its key.
    @Test func eachVariableReplacesItsKeyOfTheFile() throws {
        let key = try Self.keyFile()
        defer { try? FileManager.default.removeItem(atPath: key) }
        let yaml = ConfigurationErrorTests.changed(
            "listen: 127.0.0.1:8080",
            "listen: 127.0.0.1:8080\napns: { key: \(key), key-id: ABC123DEFG, team-id: DEF123GHIJ, environment: sandbox }"
        )
        let configuration = try load(
            yaml, ["LIVELINE_APNS_TEAM_ID": "TEAM222222", "LIVELINE_APNS_ENVIRONMENT": "production"])
        #expect(configuration.apns?.keyID == "ABC123DEFG")
        #expect(configuration.apns?.teamID == "TEAM222222")
        #expect(configuration.apns?.environment == .production)
        #expect(configuration.apns?.key == .file(key))
        // key-id may come from the environment alone.
        let withoutKeyID = ConfigurationErrorTests.changed(
            "listen: 127.0.0.1:8080", "listen: 127.0.0.1:8080\napns: { key: \(key), team-id: DEF123GHIJ }")
        #expect(try load(withoutKeyID, ["LIVELINE_APNS_KEY_ID": "KEY2222222"]).apns?.keyID == "KEY2222222")
        expectConfigurationError(
            withoutKeyID, 3, 7, "apns is missing 'key-id' (the key's 10-character Key ID), or LIVELINE_APNS_KEY_ID")
    }

    @Test func identifiersOfTheWrongShapeAreLocated() throws {
        let key = try Self.keyFile()
        defer { try? FileManager.default.removeItem(atPath: key) }
        let yaml = ConfigurationErrorTests.changed(
            "listen: 127.0.0.1:8080",
            "listen: 127.0.0.1:8080\napns:\n  key: \(key)\n  key-id: ABC123\n  team-id: DEF123GHIJ\n  topic: com.example.app.push-type.liveactivity"
        )
        expectConfigurationError(
            yaml, 5, 11,
            "apns key-id 'ABC123': a Key ID has 10 characters, and this one has 6; it is shown beside the key under Certificates, Identifiers & Profiles → Keys, and in the .p8 file's name (AuthKey_ABC123DEFG.p8)"
        )
        expectConfigurationError(
            yaml, 7, 10,
            "apns topic 'com.example.app.push-type.liveactivity': give the app's bundle id, com.example.app: Liveline adds .push-type.liveactivity to every push"
        )
        expectConfigurationError(
            yaml, 1, 1, "LIVELINE_APNS_ENVIRONMENT=staging is not 'sandbox' or 'production'",
            environment: ["LIVELINE_APNS_ENVIRONMENT": "staging"])
    }
}
