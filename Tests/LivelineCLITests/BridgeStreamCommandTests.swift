import Foundation
import LivelineTestSupport
import Testing

/// `liveline bridge serve` with the ready-made stream source against `scripts/stream-feed.py`:
/// the banner names the stream, events arrive and show in `/metrics`, and SIGTERM stops it
/// cleanly with the stream open.
@Suite(
    .enabled(
        if: ToolRequirement(untested: "bridge serve with a stream", provider: "python3").check(
            ToolRequirement.onPath("python3")), "needs python3"))
struct BridgeStreamCommandTests {
    @Test func aStreamSourceIsServedAndSIGTERMStopsIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-stream-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = CLI.packageRoot.path
        let feed = try ChildProcess.start([
            "python3", "\(root)/scripts/stream-feed.py", "--events",
            "\(root)/Scenarios/sources/sportradar/match.ndjson",
            "--api-key", "demo", "--heartbeat", "0.5",
        ])
        guard let line = await feed.line(startingWith: "listening "), let port = Int(line.dropFirst("listening ".count))
        else {
            await feed.stop(kill: true)
            Issue.record("the feed did not start: \(feed.output)")
            return
        }
        let config = directory.appendingPathComponent("sportradar.yaml").path
        try String(contentsOfFile: "\(root)/Scenarios/sources/sportradar.yaml", encoding: .utf8)
            .replacingOccurrences(
                of: "liveline-bridge: 1\n", with: "liveline-bridge: 1\nstore: sqlite:\(directory.path)/bridge.sqlite\n"
            )
            .replacingOccurrences(of: "scenario: ../football.yaml", with: "scenario: \(root)/Scenarios/football.yaml")
            .replacingOccurrences(of: "http://127.0.0.1:8711", with: "http://127.0.0.1:\(port)")
            .write(toFile: config, atomically: true, encoding: .utf8)

        let result = try await CLI.run(
            ["bridge", "serve", "--config", config, "--listen", "127.0.0.1:0"],
            environment: ["SPORTRADAR_API_KEY": "demo"], timeout: 120
        ) { bridge, out in
            guard await out.wait(for: "listening on http://127.0.0.1:"),
                let bridgePort = out.text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/)?.1
            else {
                Issue.record("the bridge did not say where it listens: \(out.text)")
                bridge.terminate()
                return
            }
            var metrics = ""
            await eventually {
                metrics =
                    (try? await Subprocess.run([
                        "curl", "-s", "--max-time", "5", "http://127.0.0.1:\(bridgePort)/metrics",
                    ]).stdout) ?? ""
                return metrics.contains(#"liveline_stream_connected{source="sportradar"} 1"#)
            }
            let activity = "http://127.0.0.1:\(bridgePort)/v1/activities/sr:sport_event:50512345"
            _ = try? await Subprocess.run([
                "curl", "-s", "--max-time", "5", "-X", "PUT", activity, "-H", "Authorization: Bearer demo-key", "-H",
                "Content-Type: application/json",
                "-d", #"{"update-token": "\#(String(repeating: "ab", count: 32))", "source": "sportradar"}"#,
            ])
            _ = try? await Subprocess.run([
                "curl", "-s", "--max-time", "5", "-X", "POST", "http://127.0.0.1:\(port)/control/emit?n=4",
            ])
            await eventually {
                metrics =
                    (try? await Subprocess.run([
                        "curl", "-s", "--max-time", "5", "http://127.0.0.1:\(bridgePort)/metrics",
                    ]).stdout) ?? ""
                return metrics.contains(#"type="score_change",result="stored"} 1"#)
            }
            #expect(
                metrics.contains(
                    #"liveline_stream_events_total{source="sportradar",type="match_started",result="stored"} 1"#),
                "\(metrics)")
            #expect(
                metrics.contains(
                    #"liveline_stream_events_total{source="sportradar",type="score_change",result="stored"} 1"#),
                "\(metrics)")
            // The goal reached the (embedded mock's) device.
            var shown = ""
            await eventually {
                shown =
                    (try? await Subprocess.run([
                        "curl", "-s", "--max-time", "5", activity, "-H", "Authorization: Bearer demo-key",
                    ]).stdout) ?? ""
                return shown.contains(#""homeScore":1"#) && shown.contains(#""pending-events":0"#)
                    && shown.contains(#""status":200"#)
            }
            #expect(shown.contains(#""lastEvent":"GOAL! Okafor, Sam 23'""#), "\(shown)")
            bridge.terminate()
        }
        await feed.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                "sources sportradar ← ndjson stream http://127.0.0.1:\(port)/stream (gaps recovered)"),
            "\(result.stdout)")
        #expect(
            result.stdout.contains("stopped: 0 events and 0 pushes wait in the store"),
            "\(result.stdout)\n\(result.stderr)")
        #expect((result.stdout + result.stderr).contains("stream connected"))
    }
}
