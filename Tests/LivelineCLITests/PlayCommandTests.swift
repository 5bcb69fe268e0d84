import Foundation
import Liveline
import LivelineMockAPNs
import LivelineMockTestSupport
import LivelineTestSupport
import Testing

/// `liveline play` as a user runs it: against the embedded mock, and against a mock APNs this
/// test starts (as a user points `--apns-url` at one), with the exit statuses the README promises.
@Suite(.serialized) struct PlayCommandTests {
    /// 30 s of story, one second at 30×.
    static let story = """
        liveline: 1
        name: Short order
        bundle-id: com.example.matchday
        policy: { min-interval: 0, stale-after: 10m }
        activities:
          - name: order
            attributes-type: OrderAttributes
            content-state: { step: 0, message: "Placed" }
            beats:
              - { id: step, every: 10s, count: 2, set: { step: "{{ n }}" } }
              - { id: done, at: 30s, set: { message: "Delivered" }, end: { dismissal: 1m } }
        """

    static let token = String(repeating: "ab", count: 32)

    /// A mock APNs over TLS with a fresh self-signed certificate and key, and the `.p8` a user
    /// would pass.
    struct Remote {
        let server: MockAPNsServer
        let keyFile: URL
        var url: String { "https://127.0.0.1:\(server.port)" }

        static func start(faults: FaultPlan = .none) async throws -> Remote {
            let mock = try await LoopbackMockAPNs.start(.tlsVerifyingTokens) { $0.faults = faults }
            return Remote(server: mock.server, keyFile: try CLI.file(mock.keyPEM, suffix: ".p8"))
        }

        /// `play FILE` to this mock with the token and credentials; `trusted` passes its certificate.
        func arguments(_ file: URL, trusted: Bool = true) -> [String] {
            var arguments = [
                "play", file.path, "--speed", "30", "--no-view", "--apns-url", url, "--token", PlayCommandTests.token,
                "--key", keyFile.path, "--key-id", LoopbackMockAPNs.keyID, "--team-id", LoopbackMockAPNs.teamID,
            ]
            if trusted, let certificate = server.certificatePath { arguments += ["--ca-file", certificate] }
            return arguments
        }

        func stop() async {
            await server.shutdown()
            try? FileManager.default.removeItem(at: keyFile)
        }
    }

    @Test func withNoCredentialsItPlaysToTheEmbeddedMockAndExitsZero() async throws {
        let file = try CLI.file(Self.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(["play", file.path, "--speed", "30", "--no-view"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("embedded mock APNs"))
        // One line per push: what APNs answered, what the device did, and why the push exists.
        // (How many pushes depends on where the start falls in its second: one push a second.)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count >= 2)
        #expect(lines.allSatisfy { $0.contains("→ 200 rendered · ") })
        #expect(lines.last?.contains("order end p5") == true)
        #expect(result.stderr.contains("\(lines.count) pushes, \(lines.count) delivered, 0 retries, 0 failed"))
    }

    @Test func aCertificateTheClientDoesNotTrustIsASetupErrorExitTwo() async throws {
        let remote = try await Remote.start()
        let file = try CLI.file(Self.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(remote.arguments(file, trusted: false), timeout: 60)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("error: APNs refused the setup"))
        #expect(result.stderr.lowercased().contains("certificate"))
        #expect(result.stderr.contains("127.0.0.1"))
        #expect(remote.server.stats().statuses.isEmpty)
        await remote.stop()
    }

    /// A loopback port nothing listens on: bound by the OS's choice, then closed, so that a
    /// child process can listen there.
    static func closedPort() throws -> Int {
        try RefusingPort().port
    }

    /// APNs out of reach ends the run before the story starts, at any speed: at speed 1 the
    /// first push of a real story may be minutes away.
    @Test(arguments: ["1", "600"])
    func aPortNobodyListensOnEndsTheRunWithOneErrorWithinThirtySeconds(speed: String) async throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        let file = try CLI.file(Self.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let began = ContinuousClock.now
        let result = try await CLI.run(
            [
                "play", file.path, "--speed", speed, "--no-view", "--apns-url", "http://127.0.0.1:\(port)", "--token",
                Self.token,
            ], timeout: 60)
        #expect(ContinuousClock.now - began < .seconds(30))
        #expect(result.status == 4, "APNs could not be reached: \(result.stderr)")
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        #expect(errors.count == 1, "\(result.stderr)")
        #expect(
            errors.first?.hasPrefix(
                "error: cannot reach http://127.0.0.1:\(port): connection refused by 127.0.0.1:\(port) (")
                == true, "\(result.stderr)")
        #expect(errors.first?.contains("nothing was sent") == true)
        // Tried again, not once: "(7 attempts in 12 s)".
        let attempts = errors.first.flatMap { $0.firstMatch(of: /\((\d+) attempts in \d+ s\)/) }.flatMap { Int($0.1) }
        #expect((attempts ?? 0) >= 2, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "no push was tried: \(result.stdout)")
        for noise in ["SingleConnectionFailure", "errno", "NIOConnectionError", "retry", "gave up"] {
            #expect(!(result.stdout + result.stderr).contains(noise), "\(result.stdout)\n\(result.stderr)")
        }
        withExtendedLifetime(refusing) {}
    }

    @Test func pushesAPNsRefusesExitThreeAndSayWhy() async throws {
        let refusing = FaultPlan(errors: [.init(error: APNsError(status: 413, reason: "PayloadTooLarge"), rate: 1)])
        let remote = try await Remote.start(faults: refusing)
        let file = try CLI.file(Self.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(remote.arguments(file))
        #expect(result.status == 3, "\(result.stderr)")
        let refused = result.stdout.split(separator: "\n").filter { $0.contains("413 PayloadTooLarge (not retried)") }
            .count
        #expect(refused >= 2)
        #expect(
            result.stderr.contains("\(refused) pushes, 0 delivered, 0 retries, \(refused) failed (\(refused) rejected)")
        )
        await remote.stop()
    }

    @Test func aKeyFileOthersCanReadIsWarnedAboutAndTheKeyNeverPrinted() async throws {
        let remote = try await Remote.start()
        let file = try CLI.file(Self.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let pem = try String(contentsOf: remote.keyFile, encoding: .utf8)
        let secretLine = try #require(pem.split(separator: "\n").dropFirst().first.map(String.init))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: remote.keyFile.path)
        let exposed = try await CLI.run(remote.arguments(file))
        #expect(exposed.status == 0, "\(exposed.stderr)")
        #expect(
            exposed.stderr.contains(
                "warning: the APNs key \(remote.keyFile.path) can be read by anyone on this machine (mode 644)"),
            "\(exposed.stderr)")
        #expect(exposed.stderr.contains("chmod 600"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: remote.keyFile.path)
        let owned = try await CLI.run(remote.arguments(file))
        #expect(owned.status == 0, "\(owned.stderr)")
        #expect(!owned.stderr.contains("warning: the APNs key"))
        for output in [exposed.stdout, exposed.stderr, owned.stdout, owned.stderr] {
            #expect(!output.contains(secretLine), "the key's PEM must never be printed")
        }
        await remote.stop()
    }

    @Test func aGoneTokenStopsTheActivityExitThree() async throws {
        let remote = try await Remote.start(faults: FaultPlan(unregisteredTokens: [Self.token]))
        let file = try CLI.file(Self.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(remote.arguments(file))
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("order: APNs answered 410 Unregistered"))
        await remote.stop()
    }

    @Test func ctrlCEndsTheActivityWithItsCurrentStateAndExits130() async throws {
        let remote = try await Remote.start()
        let file = try CLI.file(Self.story.replacingOccurrences(of: "at: 30s", with: "at: 1h"), suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(remote.arguments(file)) { process, stdout in
            _ = await stdout.wait(for: "order update")
            process.interrupt()
        }
        #expect(result.status == 130, "\(result.stderr)")
        #expect(!result.signalled)
        #expect(result.stdout.contains("order end p5 → 200"))
        let device = try #require(remote.server.activity(token: Self.token))
        #expect(device.lifecycle == .ended || device.lifecycle == .dismissed)
        await remote.stop()
    }
}
