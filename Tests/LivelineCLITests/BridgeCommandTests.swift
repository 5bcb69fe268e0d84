import Foundation
import LivelineTestSupport
import Testing

/// `liveline bridge serve` and `bridge send` as a user runs them (the README's few lines), with
/// curl as the app registering its token and reading what the device shows.
@Suite struct BridgeCommandTests {
    static func config(directory: URL) -> String {
        """
        liveline-bridge: 1
        listen: 127.0.0.1:8080
        store: sqlite:\(directory.path)/bridge.sqlite
        api-keys: [sha256:c48a01f49fd0f2cc404bc3cbbc80e91457a3d41bb429a695243de4c61794155c]
        sources:
          doordash:
            verify: header-value
            secrets: [env:DOORDASH_WEBHOOK_AUTH]
            event-type: /event_name
            activity-key: /external_delivery_id
            order-key: /event_name
            order: status-rank
            statuses: [DASHER_CONFIRMED, DASHER_PICKED_UP, DASHER_DROPPED_OFF]
            scenario: \(CLI.packageRoot.path)/Scenarios/delivery.yaml
            events:
              DASHER_CONFIRMED: { trigger: courier-assigned }
              DASHER_PICKED_UP: { trigger: picked-up, set: { eta: /dropoff_time_estimated } }
              DASHER_DROPPED_OFF: { trigger: delivered }
        """
    }

    static func curl(_ arguments: [String]) async throws -> String {
        try await Subprocess.run(["curl", "-s", "--max-time", "10"] + arguments).stdout
    }

    @Test func aWebhookBecomesAPushAndSIGINTStopsCleanly() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-bridge-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("bridge.yaml")
        try Self.config(directory: directory).write(to: config, atomically: true, encoding: .utf8)
        let body = directory.appendingPathComponent("picked-up.json")
        try
            #"{"event_name":"DASHER_PICKED_UP","external_delivery_id":"D-1","dropoff_time_estimated":"2027-01-15T18:40:00Z"}"#
            .write(to: body, atomically: true, encoding: .utf8)
        let environment = ["DOORDASH_WEBHOOK_AUTH": "Bearer dd-demo"]

        let result = try await CLI.run(
            ["bridge", "serve", "--config", config.path, "--listen", "127.0.0.1:0"], environment: environment,
            timeout: 120
        ) { process, out in
            guard let base = await out.bridgeBase() else {
                Issue.record("the bridge did not say where it listens: \(out.text)")
                process.interrupt()
                return
            }
            let token = String(repeating: "ab", count: 32)
            let registered =
                (try? await Self.curl([
                    "-X", "PUT", "\(base)/v1/activities/D-1", "-H", "Authorization: Bearer demo-key", "-H",
                    "Content-Type: application/json",
                    "-d", #"{"update-token": "\#(token)"}"#,
                ])) ?? ""
            #expect(registered.contains(#""lifecycle":"pending""#), "\(registered)")
            let sent = try? await CLI.run(
                ["bridge", "send", "--config", config.path, "--url", base, "doordash", body.path],
                environment: environment)
            #expect(sent?.status == 0)
            #expect(sent?.stdout.hasPrefix("202 ") == true, "\(sent?.stdout ?? "") \(sent?.stderr ?? "")")
            var shown = ""
            // Until APNs has answered the push.
            await eventually {
                shown =
                    (try? await Self.curl(["\(base)/v1/activities/D-1", "-H", "Authorization: Bearer demo-key"])) ?? ""
                return shown.contains(#""last-push":{"#) && shown.contains(#""status":200"#)
            }
            #expect(shown.contains(#""status":"on-the-way""#), "\(shown)")
            #expect(shown.contains(#""status":200"#), "\(shown)")
            // Without the key, the registry refuses.
            let refused =
                (try? await Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/v1/activities/D-1"])) ?? ""
            #expect(refused == "401")
            process.interrupt()
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("embedded mock APNs"))
        #expect(
            result.stdout.contains("stopped: 0 events and 0 pushes wait in the store"),
            "\(result.stdout)\n\(result.stderr)")
    }

    /// An APNs whose certificate is not trusted (here the mock's self-signed one, without
    /// `--ca-file`) is a setup error: logged at error level with its cause, shown on the
    /// activity, and the push is kept for after the fix.
    @Test func anUntrustedAPNsCertificateIsReportedAndThePushKept() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-bridge-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("bridge.yaml")
        try Self.config(directory: directory).write(to: config, atomically: true, encoding: .utf8)
        let body = directory.appendingPathComponent("confirmed.json")
        try #"{"event_name":"DASHER_CONFIRMED","external_delivery_id":"D-2"}"#.write(
            to: body, atomically: true, encoding: .utf8)
        let environment = ["DOORDASH_WEBHOOK_AUTH": "Bearer dd-demo"]

        let bridge = try await CLI.withMockAndBridge(
            mock: [
                "--accept-any-token", "--listen", "127.0.0.1:0", "--write-ca",
                directory.appendingPathComponent("ca.pem").path,
            ],
            bridge: ["--config", config.path], environment: environment
        ) { process, base, _ in
            _ = try? await Self.curl([
                "-X", "PUT", "\(base)/v1/activities/D-2", "-H", "Authorization: Bearer demo-key", "-H",
                "Content-Type: application/json",
                "-d", #"{"update-token": "\#(String(repeating: "cd", count: 32))"}"#,
            ])
            _ = try? await CLI.run(
                ["bridge", "send", "--config", config.path, "--url", base, "doordash", body.path],
                environment: environment)
            var shown = ""
            await eventually {
                shown =
                    (try? await Self.curl(["\(base)/v1/activities/D-2", "-H", "Authorization: Bearer demo-key"]))
                    ?? ""
                return shown.contains("certificate")
            }
            #expect(shown.contains("certificate"), "\(shown)")
            process.interrupt()
        }
        #expect(bridge?.status == 0)
        let log = (bridge?.stdout ?? "") + (bridge?.stderr ?? "")
        #expect(log.contains("APNs cannot be reached as configured"), "\(log)")
        #expect(log.contains("stopped: 0 events and 1 push wait in the store"), "\(log)")
    }

    @Test func aConfigurationErrorIsLocated() async throws {
        let config = try CLI.file("liveline-bridge: 1\nlisten: nowhere\nsources: {}\n", suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: config) }
        let result = try await CLI.run(["bridge", "serve", "--config", config.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(config.path):2:"), "\(result.stderr)")
    }
}
