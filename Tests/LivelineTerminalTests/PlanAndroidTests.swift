import Foundation
import Liveline
import LivelineTerminal
import LivelineTestSupport
import Testing

/// `liveline plan` with Android: both platforms' messages side by side, FCM messages as JSON
/// Lines, and FCM HTTP v1 requests as curl commands that a shell runs as written.
@Suite struct PlanAndroidTests {
    static let start: Millis = 1_795_464_000_000
    static let yaml = """
        liveline: 1
        name: Test
        bundle-id: com.example.test
        policy: { stale-after: 5m, heartbeat: 1m }
        activities:
          - name: match
            attributes-type: MatchAttributes
            attributes: { home: Northbridge, away: Harbour }
            content-state: { score: 0, note: "Kick-off", phase: first-half }
            android:
              channel: match-live
              title: "{{ attributes.home }} {{ state.score }}–0 {{ attributes.away }}"
              text: "{{ state.note }}"
              chip: "{{ state.score }}–0"
            beats:
              - { id: goal, at: 1m, priority: high, set: { score: 1, note: "It's in!" }, alert: { title: "Goal" } }
              - { id: quiet, at: 2m, set: { phase: second-half } }
              - { id: final, at: 3m, end: { dismissal: 15m } }
        """

    func run<Sink: PushSink>(_ sink: inout Sink) throws {
        var run = ScenarioRun(
            scenario: try ScenarioLoader().load(yaml: Self.yaml, file: "test.yaml").scenario, start: Self.start)
        run.run(into: &sink)
    }

    @Test func theTableShowsBothPlatformsSideBySide() throws {
        let scenario = try ScenarioLoader().load(yaml: Self.yaml, file: "test.yaml").scenario
        var table = PlanTable(scenario: scenario, start: Self.start, platforms: [.ios, .android])
        try run(&table)
        let text = table.render()
        #expect(text.contains("android: FCM data messages · channel match-live · 1 activity with a Live Update"))
        #expect(text.contains("TIME    PLATFORM  EVENT   PRI   "))
        let lines = text.split(separator: "\n").map(String.init)
        let goal = try #require(lines.firstIndex { $0.hasPrefix("+01:00  ios") })
        #expect(lines[goal + 1].hasPrefix("+01:00  android   update  HIGH"))
        #expect(
            lines[goal + 1].contains(
                "beat goal · HIGH: alert, title, text, chip · ttl 5m (stale date) · collapsible 19/20"))
        #expect(
            lines[goal + 1].contains(
                "title \"Northbridge 1–0 Harbour\" · text \"It's in!\" · chip \"1–0\" · alert \"Goal\""))
        #expect(
            lines.contains { $0.hasPrefix("+03:00  android   end     HIGH") && $0.contains("end, removed after 15m") })
        #expect(text.contains("3 pushes: 1 at priority 10, 2 at priority 5"))
        #expect(text.contains("3 FCM messages: 2 HIGH, 1 NORMAL · 0 paced · 0 not collapsible"))
    }

    @Test func anIOSOnlyTableIsUnchanged() throws {
        let scenario = try ScenarioLoader().load(yaml: Self.yaml, file: "test.yaml").scenario
        var table = PlanTable(scenario: scenario, start: Self.start)
        try run(&table)
        let text = table.render()
        #expect(!text.contains("android"))
        #expect(!text.contains("PLATFORM"))
        #expect(text.contains("TIME    EVENT   PRI  BYTES  REASON"))
    }

    @Test func jsonlGivesTheFCMMessage() throws {
        let scenario = try ScenarioLoader().load(yaml: Self.yaml, file: "test.yaml").scenario
        var lines: [String] = []
        var sink = PlanJSONL(scenario: scenario, start: Self.start, platforms: [.android]) { lines.append($0) }
        try run(&sink)
        sink.finish()
        #expect(lines.count == 3)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["platform"] as? String == "android")
        #expect(first["priority"] as? String == "HIGH")
        #expect(first["ttl"] as? String == "300s")
        #expect(first["collapse_key"] as? String == "match")
        let message = try #require(first["message"] as? [String: Any])
        let data = try #require(message["data"] as? [String: String])
        #expect(data["title"] == "Northbridge 1–0 Harbour")
        #expect(data["alert_title"] == "Goal")
        #expect((message["android"] as? [String: String])?["priority"] == "HIGH")
        #expect(message["token"] == nil)
        let quiet = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(quiet["priority"] as? String == "NORMAL")

        var both: [String] = []
        var all = PlanJSONL(scenario: scenario, start: Self.start, platforms: [.ios, .android]) { both.append($0) }
        try run(&all)
        all.finish()
        #expect(both.count == 6)
        #expect(both[0].hasSuffix(#","platform":"ios"}"#))
        #expect(both[1].hasSuffix(#","platform":"android"}"#))
    }

    @Test(.enabled(if: ToolRequirement.onPath("sh"), "needs sh"))
    func curlPrintsRequestsAShellRunsAsWritten() async throws {
        let scenario = try ScenarioLoader().load(yaml: Self.yaml, file: "test.yaml").scenario
        var lines: [String] = []
        var sink = PlanCurl(scenario: scenario, start: Self.start, platforms: [.android]) { lines.append($0) }
        lines.append(sink.preamble())
        try run(&sink)
        sink.finish()
        let script = lines.joined(separator: "\n")
        #expect(script.contains("# Set FCM_ACCESS_TOKEN"))
        #expect(script.contains(#"--header "authorization: Bearer $FCM_ACCESS_TOKEN""#))
        #expect(
            script.contains(#""${FCM_URL:-https://fcm.googleapis.com}/v1/projects/${FCM_PROJECT_ID}/messages:send""#))
        // Run by a shell with `curl` as a function that prints its arguments, the body is the
        // exact JSON with the token put in, quotes and apostrophes intact.
        let shell = "curl() { for a in \"$@\"; do printf '%s\\n' \"$a\"; done; }\n" + script
        let result = try await Subprocess.run(
            ["sh", "-c", shell],
            environment: [
                "FCM_ACCESS_TOKEN": "ya29.x", "FCM_PROJECT_ID": "liveline-test", "FCM_REGISTRATION_TOKEN": "reg:1-A",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let bodies = result.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"message\"") }
        #expect(bodies.count == 3)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(bodies[0].utf8)) as? [String: Any])
        let message = try #require(first["message"] as? [String: Any])
        #expect(message["token"] as? String == "reg:1-A")
        #expect((message["data"] as? [String: String])?["text"] == "It's in!")
        #expect(result.stdout.contains("https://fcm.googleapis.com/v1/projects/liveline-test/messages:send"))
        #expect(result.stdout.contains("authorization: Bearer ya29.x"))
    }
}
