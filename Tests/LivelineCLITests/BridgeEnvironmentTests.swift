import Foundation
import LivelineTestSupport
import Testing

/// `bridge serve` configured the way containers are: from the environment (the configuration's
/// path, the listen address, the log level and format, the APNs credentials), refusing to
/// serve a demo unless asked, and logging one JSON object a line when told to.
@Suite struct BridgeEnvironmentTests {
    /// A scratch directory with `bridge.yaml` (BridgeCommandTests' DoorDash configuration),
    /// removed by the caller; and the variables its secret needs.
    static func scratch() throws -> (directory: URL, config: String, environment: [String: String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-bridge-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bridge.yaml").path
        try BridgeCommandTests.config(directory: directory).write(toFile: config, atomically: true, encoding: .utf8)
        return (directory, config, ["DOORDASH_WEBHOOK_AUTH": "Bearer dd-demo"])
    }

    @Test func withoutCredentialsTheRequiredAPNsIsNamedWithEveryWayToGiveIt() async throws {
        let (directory, config, environment) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (flags, variables) in [
            (["--require-apns"], [String: String]()), ([], ["LIVELINE_BRIDGE_REQUIRE_APNS": "1"]),
        ] {
            let result = try await CLI.run(
                ["bridge", "serve", "--config", config] + flags,
                environment: environment.merging(variables) { $1 }, timeout: 60)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("liveline bridge: no APNs credentials, so nothing to push to"))
            for way in [
                "an apns: section in \(config)", "LIVELINE_APNS_KEY_FILE", "LIVELINE_APNS_KEY_ID", "--apns-url",
                "--embedded-mock",
            ] {
                #expect(result.stderr.contains(way), "\(result.stderr)")
            }
            #expect(result.stdout.isEmpty)
        }
        let unclear = try await CLI.run(
            ["bridge", "serve", "--config", config],
            environment: environment.merging(["LIVELINE_BRIDGE_REQUIRE_APNS": "maybe"]) { $1 })
        #expect(unclear.status == 64)
        #expect(unclear.stderr.contains("LIVELINE_BRIDGE_REQUIRE_APNS=maybe is not 1 or 0"), "\(unclear.stderr)")
    }

    @Test func usageErrorsNameTheVariable() async throws {
        let (directory, config, environment) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let noConfig = try await CLI.run(["bridge", "serve"])
        #expect(noConfig.status == 64)
        #expect(noConfig.stderr.contains("--config FILE.yaml (or set LIVELINE_BRIDGE_CONFIG)"), "\(noConfig.stderr)")
        let level = try await CLI.run(
            ["bridge", "serve", "--config", config],
            environment: environment.merging(["LIVELINE_BRIDGE_LOG_LEVEL": "loud"]) { $1 })
        #expect(level.status == 64)
        #expect(level.stderr.contains("LIVELINE_BRIDGE_LOG_LEVEL=loud is not one of trace"), "\(level.stderr)")
        let listen = try await CLI.run(
            ["bridge", "serve", "--config", config],
            environment: environment.merging(["LIVELINE_BRIDGE_LISTEN": "everywhere"]) { $1 })
        #expect(listen.status == 1)
        #expect(listen.stderr.contains("LIVELINE_BRIDGE_LISTEN=everywhere is not host:port"), "\(listen.stderr)")
    }

    /// `bridge wait-ready`, started with the bridge as a script starts them, returns once it
    /// answers; against nothing it gives up at its timeout, saying why.
    @Test func waitReadyReturnsOnceTheBridgeAnswers() async throws {
        let (directory, config, environment) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try PlayCommandTests.closedPort()
        let variables = environment.merging(["LIVELINE_BRIDGE_LISTEN": "127.0.0.1:\(port)"]) { $1 }
        let served = try await CLI.run(
            ["bridge", "serve", "--config", config], environment: variables, timeout: 120
        ) { process, _ in
            let ready = try? await CLI.run(["bridge", "wait-ready", "--config", config], environment: variables)
            #expect(ready?.status == 0, "\(ready?.stderr ?? "")")
            #expect(ready?.stdout == "http://127.0.0.1:\(port) is ready\n")
            let health = try? await Subprocess.run(["curl", "-sf", "http://127.0.0.1:\(port)/readyz"])
            #expect(health?.status == 0, "ready means /readyz answers 200")
            process.interrupt()
        }
        #expect(served.status == 0, "\(served.stderr)")

        let refusing = try RefusingPort()
        let began = ContinuousClock.now
        let nothing = try await CLI.run([
            "bridge", "wait-ready", "--url", "http://127.0.0.1:\(refusing.port)", "--timeout", "1s",
        ])
        #expect(ContinuousClock.now - began < .seconds(20))
        #expect(nothing.status == 1)
        #expect(
            nothing.stderr.hasPrefix(
                "liveline bridge wait-ready: http://127.0.0.1:\(refusing.port)/readyz did not answer 200 within 1s: "),
            "\(nothing.stderr)")
        withExtendedLifetime(refusing) {}
    }

    /// The whole configuration from the environment, the demo asked for with `--embedded-mock`
    /// (over `LIVELINE_BRIDGE_REQUIRE_APNS`), and every line on standard error a JSON object.
    @Test func aContainerStyleStartLogsJSONOnly() async throws {
        let (directory, config, environment) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try PlayCommandTests.closedPort()
        let variables = environment.merging([
            "LIVELINE_BRIDGE_CONFIG": config, "LIVELINE_BRIDGE_LISTEN": "127.0.0.1:\(port)",
            "LIVELINE_BRIDGE_REQUIRE_APNS": "1", "LIVELINE_BRIDGE_LOG_FORMAT": "json",
        ]) { $1 }
        let result = try await CLI.run(
            ["bridge", "serve", "--embedded-mock"], environment: variables, timeout: 120
        ) { process, _ in
            let up = await eventually(within: 60, every: .milliseconds(50)) {
                (try? await Subprocess.run(["curl", "-sf", "--max-time", "2", "http://127.0.0.1:\(port)/healthz"])
                    .status)
                    == 0
            }
            #expect(up, "the bridge listens where LIVELINE_BRIDGE_LISTEN says")
            process.terminate()
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "the start and the stop are log records: \(result.stdout)")
        let records = result.stderr.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        #expect(!records.isEmpty && records.allSatisfy { $0 != nil }, "every line is a JSON object: \(result.stderr)")
        let listening = records.compactMap { $0 }.first { $0["message"] as? String == "started" }
        #expect(listening?["url"] as? String == "http://127.0.0.1:\(port)", "\(result.stderr)")
        #expect(listening?["level"] as? String == "notice")
        #expect(listening?["logger"] as? String == "liveline.bridge")
        #expect((listening?["pushes"] as? String)?.contains("embedded mock APNs") == true, "\(result.stderr)")
        #expect((listening?["pushes"] as? String)?.hasSuffix("(--embedded-mock)") == true, "\(result.stderr)")
        #expect(records.compactMap { $0 }.contains { $0["message"] as? String == "stopped" }, "\(result.stderr)")
        #expect(records.compactMap { $0 }.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
    }

    /// `LIVELINE_APNS_*` give the bridge its credentials without an `apns:` section: they sign
    /// the provider tokens a mock of this test's checks.
    @Test func theCredentialsCanComeFromTheEnvironment() async throws {
        let (directory, config, environment) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let remote = try await PlayCommandTests.Remote.start()
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: remote.keyFile.path)
        let variables = environment.merging([
            "LIVELINE_APNS_KEY_FILE": remote.keyFile.path, "LIVELINE_APNS_KEY_ID": "ABC123DEFG",
            "LIVELINE_APNS_TEAM_ID": "DEF123GHIJ", "LIVELINE_APNS_ENVIRONMENT": "production",
            "LIVELINE_BRIDGE_REQUIRE_APNS": "1",
        ]) { $1 }
        let token = String(repeating: "ab", count: 32)
        let result = try await CLI.run(
            [
                "bridge", "serve", "--config", config, "--listen", "127.0.0.1:0", "--apns-url", remote.url, "--ca-file",
                remote.server.certificatePath ?? "",
            ], environment: variables, timeout: 120
        ) { process, out in
            guard let base = await out.bridgeBase() else {
                Issue.record("the bridge did not start: \(out.text)")
                process.interrupt()
                return
            }
            _ = try? await BridgeCommandTests.curl([
                "-X", "PUT", "\(base)/v1/activities/D-1", "-H", "Authorization: Bearer demo-key", "-H",
                "Content-Type: application/json", "-d", #"{"update-token": "\#(token)", "source": "doordash"}"#,
            ])
            let sent = try? await CLI.run(
                [
                    "bridge", "send", "--config", config, "--url", base, "doordash",
                    try CLI.file(
                        #"{"event_name":"DASHER_CONFIRMED","external_delivery_id":"D-1"}"#, suffix: ".json"
                    ).path,
                ], environment: variables)
            #expect(sent?.status == 0, "\(sent?.stderr ?? "")")
            let pushed = await eventually(within: 60) { !remote.server.pushes(token: token).isEmpty }
            #expect(pushed, "the push, signed with the key from LIVELINE_APNS_KEY_FILE, reached the mock")
            #expect(remote.server.pushes(token: token).allSatisfy { $0.status == 200 }, "the mock accepted its JWT")
            process.interrupt()
        }
        #expect(result.status == 0, "\(result.stderr)")
        await remote.stop()
    }
}
