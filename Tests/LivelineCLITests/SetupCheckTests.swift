import Crypto
import Foundation
import LivelineTestSupport
import Testing

/// What is checked before the first push: every value that has a known shape, named where it
/// came from (a flag or a variable) with the fix; and a target nobody answers at, which ends
/// the run at its start with one error and a documented status.
@Suite struct SetupCheckTests {
    static let token = String(repeating: "ab", count: 32)

    /// A P-256 key file (or another curve's), readable by its owner only; removed by the caller.
    static func keyFile(curve384: Bool = false) throws -> URL {
        let pem = curve384 ? P384.Signing.PrivateKey().pemRepresentation : P256.Signing.PrivateKey().pemRepresentation
        let file = try CLI.file(pem, suffix: ".p8")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return file
    }

    /// `play` with the given flags and environment, to an address that would refuse: each case
    /// must be refused before that matters, exit 1, with one `error:` line.
    func refused(
        _ flags: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let file = try CLI.file(PlayCommandTests.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(["play", file.path, "--no-view"] + flags, environment: environment)
        #expect(result.status == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error: ") }
        #expect(errors.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        return errors.first.map(String.init) ?? ""
    }

    @Test func aTokenThatIsNotOneIsRefusedNamingTheFlag() async throws {
        let short = try await refused(["--token", "abc"])
        #expect(
            short
                == "error: --token abc: a device token has at least 64 hex digits (32 bytes), and this one has 3; copy the whole token the app printed"
        )
        let notHex = try await refused(["--start-token", "order=" + String(repeating: "zz", count: 32)])
        #expect(notHex.hasPrefix("error: --start-token order=zzzz"), "\(notHex)")
        #expect(notHex.contains("hexadecimal"), "\(notHex)")
    }

    @Test func keyTeamAndTopicAreCheckedWhereverTheyCameFrom() async throws {
        let key = try Self.keyFile()
        defer { try? FileManager.default.removeItem(at: key) }
        let keyID = try await refused([
            "--token", Self.token, "--key", key.path, "--key-id", "X", "--team-id", "DEF123GHIJ",
        ])
        #expect(keyID.hasPrefix("error: --key-id X: a Key ID has 10 characters, and this one has 1;"), "\(keyID)")
        #expect(keyID.contains("Certificates, Identifiers & Profiles → Keys"))
        let teamID = try await refused(
            ["--token", Self.token],
            environment: [
                "LIVELINE_APNS_KEY_FILE": key.path, "LIVELINE_APNS_KEY_ID": "ABC123DEFG",
                "LIVELINE_APNS_TEAM_ID": "DEF123GHI",
            ])
        #expect(teamID.hasPrefix("error: LIVELINE_APNS_TEAM_ID=DEF123GHI: a Team ID has 10 characters"), "\(teamID)")
        let topic = try await refused(
            [
                "--token", Self.token, "--key", key.path, "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ",
                "--topic", "com.example.matchday.push-type.liveactivity",
            ])
        #expect(
            topic
                == "error: --topic com.example.matchday.push-type.liveactivity: give the app's bundle id, com.example.matchday: Liveline adds .push-type.liveactivity to every push"
        )
        let fromVariable = try await refused(
            ["--token", Self.token], environment: ["LIVELINE_APNS_TOPIC": "com example"])
        #expect(fromVariable.hasPrefix("error: LIVELINE_APNS_TOPIC=com example: a topic is the app's bundle id"))
        let environment = try await refused(
            ["--token", Self.token], environment: ["LIVELINE_APNS_ENVIRONMENT": "staging"])
        #expect(environment == "error: LIVELINE_APNS_ENVIRONMENT=staging: expected sandbox or production")
    }

    @Test func aKeyOnAnotherCurveIsNamed() async throws {
        let key = try Self.keyFile(curve384: true)
        defer { try? FileManager.default.removeItem(at: key) }
        let curve = try await refused(
            ["--token", Self.token, "--key", key.path, "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ"])
        #expect(curve.hasPrefix("error: the APNs key \(key.path) is not usable: the key is on the curve P-384;"))
    }

    /// The variables stand in for the flags: a play to a mock of this test's, signed with the
    /// key the variables name (the mock checks every JWT against it).
    @Test func theVariablesStandInForTheFlags() async throws {
        let remote = try await PlayCommandTests.Remote.start()
        let file = try CLI.file(PlayCommandTests.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: remote.keyFile.path)
        let result = try await CLI.run(
            [
                "play", file.path, "--speed", "30", "--no-view", "--apns-url", remote.url, "--ca-file",
                remote.server.certificatePath ?? "", "--token", Self.token,
            ],
            environment: [
                "LIVELINE_APNS_KEY_FILE": remote.keyFile.path, "LIVELINE_APNS_KEY_ID": "ABC123DEFG",
                "LIVELINE_APNS_TEAM_ID": "DEF123GHIJ", "LIVELINE_APNS_TOPIC": "com.example.other",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(remote.server.pushes(token: Self.token).allSatisfy { $0.status == 200 })
        #expect(!remote.server.pushes(token: Self.token).isEmpty)
        await remote.stop()
    }

    @Test func aLoadTestAgainstATargetNobodyAnswersAtEndsWithinThirtySeconds() async throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        let file = try CLI.file(LoadCommandTests.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        // The promise is Liveline's own waiting (15 s of patience, then one error), not this
        // machine's speed: what a bare start of the binary takes now is allowed on top.
        let bare = ContinuousClock.now
        _ = try await CLI.run(["--version"])
        let startup = ContinuousClock.now - bare
        let began = ContinuousClock.now
        let result = try await CLI.run(
            ["load", file.path, "--activities", "20", "--target", "http://127.0.0.1:\(port)", "--quiet"], timeout: 90)
        #expect(ContinuousClock.now - began < .seconds(30) + startup * 2, "a bare start took \(startup)")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "error: cannot set up a connection to http://127.0.0.1:\(port): connection refused by 127.0.0.1:\(port) ("
            ),
            "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        withExtendedLifetime(refusing) {}
    }
}
