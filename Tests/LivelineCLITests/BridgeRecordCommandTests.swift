import Foundation
import LivelineTestSupport
import Synchronization
import Testing

/// The round trip as a user runs it: `liveline bridge serve` (pushing to a `liveline mock-apns`
/// whose inspection API keeps every push), the ready-made DoorDash source's samples sent with
/// `liveline bridge send`, then `bridge record`, `validate` and `plan --format jsonl --start`:
/// the plan's payloads are the pushes the mock received, in order.
@Suite struct BridgeRecordCommandTests {
    static func curl(_ arguments: [String]) async throws -> String {
        try await Subprocess.run(["curl", "-s", "--max-time", "10"] + arguments).stdout
    }

    @Test func recordValidatePlanReproducesThePushes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sources = CLI.packageRoot.appendingPathComponent("Scenarios/sources")
        let config = directory.appendingPathComponent("doordash.yaml").path
        try String(contentsOf: sources.appendingPathComponent("doordash.yaml"), encoding: .utf8)
            .replacingOccurrences(
                of: "liveline-bridge: 1\n", with: "liveline-bridge: 1\nstore: sqlite:\(directory.path)/bridge.sqlite\n"
            )
            .replacingOccurrences(
                of: "scenario: ../delivery.yaml", with: "scenario: \(CLI.packageRoot.path)/Scenarios/delivery.yaml"
            )
            .write(toFile: config, atomically: true, encoding: .utf8)
        let environment = ["DOORDASH_WEBHOOK_AUTH": "Bearer dd-demo"]
        let token = String(repeating: "ef", count: 32)
        let recording = directory.appendingPathComponent("order.yaml").path
        let history = Mutex<[String]>([])

        _ = try await CLI.run(
            [
                "mock-apns", "--h2c", "--accept-any-token", "--listen", "127.0.0.1:0", "--inspect", "127.0.0.1:0",
                "--keep-payloads",
            ], timeout: 180
        ) { mock, mockOut in
            guard await mockOut.wait(for: "inspection API: http://127.0.0.1:"),
                let mockPort = mockOut.text.firstMatch(of: /on http:\/\/127\.0\.0\.1:(\d+)/)?.1,
                let inspectPort = mockOut.text.firstMatch(of: /inspection API: http:\/\/127\.0\.0\.1:(\d+)/)?.1
            else {
                Issue.record("the mock did not say where it listens: \(mockOut.text)")
                mock.interrupt()
                return
            }
            let served = try? await CLI.run(
                [
                    "bridge", "serve", "--config", config, "--listen", "127.0.0.1:0", "--apns-url",
                    "http://127.0.0.1:\(mockPort)",
                ],
                environment: environment, timeout: 120
            ) { bridge, out in
                guard await out.wait(for: "listening on http://127.0.0.1:"),
                    let port = out.text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/)?.1
                else {
                    Issue.record("the bridge did not say where it listens: \(out.text)")
                    bridge.interrupt()
                    return
                }
                let base = "http://127.0.0.1:\(port)"
                _ = try? await Self.curl([
                    "-X", "PUT", "\(base)/v1/activities/D-58213", "-H", "Authorization: Bearer demo-key", "-H",
                    "Content-Type: application/json",
                    "-d", #"{"update-token": "\#(token)", "source": "doordash"}"#,
                ])
                let samples =
                    (try? FileManager.default.contentsOfDirectory(
                        atPath: sources.appendingPathComponent("doordash").path
                    ).sorted()) ?? []
                for sample in samples {
                    let sent = try? await CLI.run(
                        [
                            "bridge", "send", "--config", config, "--url", base, "doordash",
                            sources.appendingPathComponent("doordash/\(sample)").path,
                        ],
                        environment: environment)
                    #expect(
                        sent?.stdout.hasPrefix("202 ") == true, "\(sample): \(sent?.stdout ?? "") \(sent?.stderr ?? "")"
                    )
                }
                let answered = await eventually {
                    let shown =
                        (try? await Self.curl(["\(base)/v1/activities/D-58213", "-H", "Authorization: Bearer demo-key"]))
                        ?? ""
                    return shown.contains(#""lifecycle":"ended""#) && shown.contains(#""pending-events":0"#)
                        && shown.contains(#""status":200"#)
                }
                #expect(answered, "the end push was not answered")
                bridge.interrupt()
            }
            #expect(served?.status == 0, "\(served?.stderr ?? "")")
            let text = (try? await Self.curl(["http://127.0.0.1:\(inspectPort)/activities/\(token)/pushes"])) ?? ""
            let records = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]) ?? []
            history.withLock {
                $0 = records.filter { $0["status"] as? Int == 200 }.compactMap { $0["payload"] as? String }
            }
            mock.interrupt()
        }

        let recorded = try await CLI.run(
            ["bridge", "record", "D-58213", "--config", config, "--out", recording], environment: environment)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stderr.isEmpty, "no warnings: \(recorded.stderr)")
        #expect(recorded.stdout.contains("wrote \(recording): 1 activity, 5 beats"), "\(recorded.stdout)")
        let start = try #require(recorded.stdout.firstMatch(of: /plan --start (\S+)/)?.1)

        let validated = try await CLI.run(["validate", recording])
        #expect(validated.status == 0, "\(validated.stdout)\(validated.stderr)")

        let planned = try await CLI.run(["plan", "--format", "jsonl", "--start", String(start), recording])
        #expect(planned.status == 0, "\(planned.stderr)")
        // The story's android: block came with the recording: the plan has both platforms' lines.
        let lines = try planned.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(lines.contains { $0["platform"] as? String == "android" }, "\(planned.stdout)")
        let payloads = try lines.filter { $0["platform"] as? String != "android" }.map { object -> NSDictionary in
            try #require(object["payload"] as? NSDictionary)
        }
        let received = history.withLock { $0 }
        let sent = try received.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary)
        }
        #expect(sent.count >= 2, "the mock received \(sent.count) push(es)")
        #expect((sent.last?["aps"] as? NSDictionary)?["event"] as? String == "end")
        #expect(payloads == sent, "planned:\n\(planned.stdout)\nreceived:\n\(received.joined(separator: "\n"))")

        // A recording is a scenario like any other: played again, and many times over, faster.
        let played = try await CLI.run(["play", recording, "--speed", "100"])
        #expect(played.status == 0, "\(played.stdout)\(played.stderr)")
        #expect(played.stdout.contains("d-58213 end"), "\(played.stdout)")
        #expect(played.stderr.contains("0 failed"), "\(played.stderr)")
        let loaded = try await CLI.run(["load", recording, "--activities", "40", "--clock", "real", "--speed", "100"])
        #expect(loaded.status == 0, "\(loaded.stdout)\(loaded.stderr)")
        #expect(loaded.stdout.contains("40 played"), "\(loaded.stdout)")
        #expect(loaded.stdout.contains("0 lost"), "\(loaded.stdout)")
    }
}
