import Foundation
import Liveline
import LivelineTerminal
import Testing

/// How `liveline plan` shows a renewal: in the table, as JSON Lines and as curl commands.
@Suite struct PlanRenewalTests {
    static let start: Millis = 1_795_464_000_000

    static let yaml = """
        liveline: 1
        name: Long order
        bundle-id: com.example.test
        policy: { stale-after: 2h, heartbeat: 1m, renew: { before: 2h, until: 5h } }
        activities:
          - name: order
            attributes-type: OrderAttributes
            content-state: { step: 0 }
            beats:
              - { at: 0, start: { input-push-token: true }, alert: { title: "Ordered" } }
              - { id: step, every: 90m, to: 4h30m, set: { step: "{{ n }}" } }
              - { id: done, at: 5h, end: true }
        """

    func run<Sink: PushSink>(_ sink: inout Sink) throws -> Scenario {
        let scenario = try ScenarioLoader().load(yaml: Self.yaml, file: "order.yaml").scenario
        var run = ScenarioRun(scenario: scenario, start: Self.start)
        run.run(into: &sink)
        return scenario
    }

    @Test func theTableShowsEachRenewalAsAStartAndAnEndAndCountsThem() throws {
        let scenario = try ScenarioLoader().load(yaml: Self.yaml, file: "order.yaml").scenario
        var table = PlanTable(scenario: scenario, start: Self.start)
        _ = try run(&table)
        let text = table.render()
        let lines = text.split(separator: "\n").map(String.init)
        let renewals = lines.filter { $0.contains("renewal #") }
        #expect(renewals.count == 4, "\(text)")
        #expect(renewals[0].hasPrefix("+2:00:00") && renewals[0].contains("start"))
        #expect(renewals[0].contains("renewal #1: successor starts · budget 11/12"))
        #expect(renewals[0].contains(#"alert "Long order""#))
        #expect(renewals[1].hasPrefix("+2:00:00") && renewals[1].contains("renewal #1: predecessor ends"))
        #expect(renewals[1].contains("end, dismissed at once"))
        #expect(renewals[2].hasPrefix("+4:00:00"))
        #expect(lines.last?.contains("2 renewals") == true, "\(text)")
    }

    @Test func jsonlEndsEachPushAfterARenewalWithItsGeneration() throws {
        var collected: [String] = []
        let scenario = try ScenarioLoader().load(yaml: Self.yaml, file: "order.yaml").scenario
        var sink = PlanJSONL(scenario: scenario, start: Self.start) { collected.append($0) }
        _ = try run(&sink)
        let objects = try collected.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.first?["generation"] == nil)
        let renewal = try #require(objects.firstIndex { ($0["reason"] as? String)?.hasPrefix("renewal #1") == true })
        #expect(objects[renewal]["event"] as? String == "start" && objects[renewal]["generation"] as? Int == 1)
        #expect(objects[renewal + 1]["event"] as? String == "end" && objects[renewal + 1]["generation"] == nil)
        #expect(objects.last?["generation"] as? Int == 2)
        #expect(collected[renewal].hasSuffix(#","generation":1}"#))
    }

    @Test func curlSendsTheSuccessorsUpdatesToItsOwnToken() throws {
        var collected: [String] = []
        let scenario = try ScenarioLoader().load(yaml: Self.yaml, file: "order.yaml").scenario
        var sink = PlanCurl(scenario: scenario, start: Self.start) { collected.append($0) }
        _ = try run(&sink)
        #expect(sink.preamble().contains("$ACTIVITY_PUSH_TOKEN_RENEWAL_n"))
        let renewalEnd = try #require(collected.first { $0.contains("renewal #1: predecessor ends") })
        #expect(renewalEnd.contains("/3/device/$ACTIVITY_PUSH_TOKEN\""))
        let last = try #require(collected.last)
        #expect(last.contains("/3/device/$ACTIVITY_PUSH_TOKEN_RENEWAL_2\""))
    }
}
