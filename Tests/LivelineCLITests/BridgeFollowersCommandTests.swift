import Foundation
import LivelineTestSupport
import Testing

/// `liveline bridge followers import` beside a running `bridge serve` (embedded mock APNs): the
/// imported audience receives the next webhook's push, counted by key in `/metrics`.
@Suite struct BridgeFollowersCommandTests {
    @Test func anImportedAudienceReceivesTheNextPush() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-followers-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("bridge.yaml")
        try BridgeCommandTests.config(directory: directory).write(to: config, atomically: true, encoding: .utf8)
        let followers = directory.appendingPathComponent("fans.ndjson")
        try (0..<3).map { #"{"device": "fan-\#($0)", "update-token": "\#(String(format: "%064x", $0 + 1))"}"# }
            .joined(separator: "\n").write(to: followers, atomically: true, encoding: .utf8)
        let body = directory.appendingPathComponent("picked-up.json")
        try
            #"{"event_name":"DASHER_PICKED_UP","external_delivery_id":"D-1","dropoff_time_estimated":"2027-01-15T18:40:00Z"}"#
            .write(to: body, atomically: true, encoding: .utf8)
        let environment = ["DOORDASH_WEBHOOK_AUTH": "Bearer dd-demo"]

        // Nothing registered yet: the import says so and exits 1.
        let unregistered = try await CLI.run([
            "bridge", "followers", "import", followers.path, "--key", "D-1", "--config", config.path,
        ])
        #expect(unregistered.status == 1)
        #expect(unregistered.stderr.contains("no activity 'D-1' is registered"), "\(unregistered.stderr)")

        let result = try await CLI.run(
            ["bridge", "serve", "--config", config.path, "--listen", "127.0.0.1:0"], environment: environment,
            timeout: 120
        ) { process, out in
            guard let base = await out.bridgeBase() else {
                Issue.record("the bridge did not say where it listens: \(out.text)")
                process.interrupt()
                return
            }
            let registered =
                (try? await BridgeCommandTests.curl([
                    "-X", "PUT", "\(base)/v1/activities/D-1", "-H", "Authorization: Bearer demo-key", "-H",
                    "Content-Type: application/json",
                    "-d", #"{"audience": true}"#,
                ])) ?? ""
            #expect(registered.contains(#""key":"D-1""#), "\(registered)")
            let imported = try? await CLI.run([
                "bridge", "followers", "import", followers.path, "--key", "D-1", "--config", config.path,
            ])
            #expect(imported?.status == 0, "\(imported?.stderr ?? "")")
            #expect(
                imported?.stdout.contains("D-1: 3 followers (3 new, 0 changed, 0 unchanged)") == true,
                "\(imported?.stdout ?? "")")
            let sent = try? await CLI.run(
                ["bridge", "send", "--config", config.path, "--url", base, "doordash", body.path],
                environment: environment)
            #expect(sent?.status == 0)
            var metrics = ""
            await eventually(within: 20, every: .milliseconds(50)) {
                metrics = (try? await BridgeCommandTests.curl(["\(base)/metrics"])) ?? ""
                return metrics.contains(#"liveline_fanout_pushes_total{key="D-1"} 3"#)
            }
            #expect(metrics.contains(#"liveline_fanout_pushes_total{key="D-1"} 3"#), "\(metrics)")
            let shown =
                (try? await BridgeCommandTests.curl([
                    "\(base)/v1/activities/D-1", "-H", "Authorization: Bearer demo-key",
                ])) ?? ""
            #expect(shown.contains(#""followers":{"total":3,"updating":3"#), "\(shown)")
            process.interrupt()
        }
        #expect(result.status == 0, "\(result.stderr)")
    }
}
