import Foundation
import Liveline
import LivelineTerminal
import LivelineTestSupport
import Testing

/// 2026-11-23T20:00:00Z, the plans' start.
private let testStart: Millis = 1_795_464_000_000

private func load(_ yaml: String) throws -> LoadedScenario {
    try ScenarioLoader().load(yaml: yaml, file: "test.yaml")
}

@Suite struct PlanOutputTests {
    static let yaml = """
        liveline: 1
        name: Test
        bundle-id: com.example.test
        policy:
          stale-after: 10m
          heartbeat: 1m
        activities:
          - name: match
            attributes-type: MatchAttributes
            attributes: { home: A, away: B }
            content-state: { score: 0, phase: pre }
            beats:
              - { id: goal, at: 1m, priority: high, set: { score: 1 }, alert: { title: "It's in!" } }
              - { id: final, at: 2m, end: true }
        """

    func lines<Sink: PushSink>(_ make: (@escaping (String) -> Void) -> Sink) throws -> [String] {
        let scenario = try load(Self.yaml).scenario
        var collected: [String] = []
        var sink = make { collected.append($0) }
        var run = ScenarioRun(scenario: scenario, start: testStart)
        run.run(into: &sink)
        return collected
    }

    @Test func jsonlHasOneObjectPerPushWithTheStableFields() throws {
        let scenario = try load(Self.yaml).scenario
        let output = try lines { PlanJSONL(scenario: scenario, start: testStart, emit: $0) }
        #expect(output.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(output[0].utf8)) as? [String: Any])
        #expect(first["activity"] as? String == "match")
        #expect(first["offset"] as? Int == 60)
        #expect(first["time"] as? String == "2026-11-23T20:01:00Z")
        #expect(first["priority"] as? Int == 10)
        #expect(first["reason"] as? String == "beat goal · budget 11/12")
        let headers = try #require(first["headers"] as? [String: String])
        #expect(
            headers == [
                "apns-topic": "com.example.test.push-type.liveactivity", "apns-push-type": "liveactivity",
                "apns-priority": "10", "apns-expiration": String(testStart / 1000 + 60 + 3600),
            ])
        let payload = try #require(first["payload"] as? [String: Any])
        #expect((payload["aps"] as? [String: Any])?["event"] as? String == "update")
        // The payload is embedded byte for byte as it would be sent.
        #expect(
            output[0].contains(
                #""payload":{"aps":{"timestamp":1795464060,"event":"update","content-state":{"score":1,"phase":"pre"}"#)
        )
        #expect(output[0].hasPrefix(#"{"activity":"match","offset":60,"time":"#))
    }

    @Test func curlCommandsFollowApplesFormAndReadTokensFromTheEnvironment() throws {
        let scenario = try load(Self.yaml).scenario
        let output = try lines { PlanCurl(scenario: scenario, start: testStart, emit: $0) }
        let command = output[0]
        #expect(
            command.contains(
                "curl -v \\\n  --header \"apns-topic: com.example.test.push-type.liveactivity\" \\\n  --header \"apns-push-type: liveactivity\" \\\n  --header \"apns-priority: 10\""
            ))
        #expect(command.contains("--header \"authorization: bearer $AUTHENTICATION_TOKEN\""))
        #expect(
            command.contains(
                "--http2 \"https://${APNS_HOST_NAME:-api.sandbox.push.apple.com}/3/device/$ACTIVITY_PUSH_TOKEN\""))
        // A quote in the payload is escaped for the shell.
        #expect(command.contains(#""title":"It'\''s in!""#))
    }

    @Test func curlCommandsRunInAShell() async throws {
        let scenario = try load(Self.yaml).scenario
        var script = PlanCurl(scenario: scenario, start: testStart, emit: { _ in }).preamble()
        script += "\ncurl() { for a in \"$@\"; do printf '%s\\n' \"$a\"; done; }\n"
        script += try lines { PlanCurl(scenario: scenario, start: testStart, emit: $0) }.joined(separator: "\n")
        let shell = try await Subprocess.run(
            ["-c", script], executable: "/bin/sh",
            environment: [
                "AUTHENTICATION_TOKEN": "jwt", "ACTIVITY_PUSH_TOKEN": "abc123", "APNS_HOST_NAME": "localhost:2197",
            ])
        let arguments = shell.stdout.split(separator: "\n").map(String.init)
        #expect(arguments.contains("authorization: bearer jwt"))
        #expect(arguments.contains("https://localhost:2197/3/device/abc123"))
        let body = try #require(arguments.first { $0.hasPrefix("{\"aps\"") })
        #expect((try? JSONSerialization.jsonObject(with: Data(body.utf8))) != nil)
        #expect(body.contains("It's in!"))
    }

    @Test func theTableShowsTimeReasonsAndChanges() throws {
        let scenario = try load(Self.yaml).scenario
        var table = PlanTable(scenario: scenario, start: testStart)
        var run = ScenarioRun(scenario: scenario, start: testStart)
        run.run(into: &table)
        let text = table.render()
        #expect(text.contains("TIME    EVENT   PRI  BYTES  REASON"))
        #expect(text.contains("+01:00  update  10"))
        #expect(text.contains("beat goal · budget 11/12"))
        #expect(text.contains("score 1 · alert \"It's in!\""))
        #expect(text.contains("end, iOS keeps it up to 4h"))
        #expect(text.contains("2 pushes: 1 at priority 10, 1 at priority 5"))
    }

    @Test func diagnosticsShowTheLineAndACaret() {
        let formatter = DiagnosticFormatter(sources: ["f.yaml": "a: 1\n  bad: x\n"])
        let text = formatter.format(
            Diagnostic(.error, Liveline.SourceLocation(file: "f.yaml", line: 2, column: 3), "nope"))
        #expect(text == "f.yaml:2:3: error: nope\n  2 |   bad: x\n    |   ^")
    }

    @Test func aVeryLongLineShowsAWindowAroundTheColumn() {
        let line = String(repeating: "[", count: 5000) + "x" + String(repeating: "]", count: 5000)
        let formatter = DiagnosticFormatter(sources: ["f.yaml": "a: " + line])
        let text = formatter.format(
            Diagnostic(.error, Liveline.SourceLocation(file: "f.yaml", line: 1, column: 5004), "here"))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[1].count < 140 && lines[1].contains("…[[[") && lines[1].hasSuffix("]]]…"), "\(lines[1])")
        let caret = lines[2].count - 1,
            x = lines[1].firstIndex(of: "x").map { lines[1].distance(from: lines[1].startIndex, to: $0) }
        #expect(caret == x, "the caret sits under the column")
    }
}
