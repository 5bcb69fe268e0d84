import Foundation
import Liveline
import LivelineMockAPNs
import Synchronization
import Testing

/// The dashboard end to end on loopback: the page over real HTTP/1.1, and the Server-Sent Events
/// stream as pushes land on the mock over HTTP/2.
@Suite("The live dashboard's page and event stream")
struct DashboardStreamTests {
    static func start(
        _ configure: @escaping (inout DashboardConfiguration) -> Void = { _ in }
    ) async throws -> DeviceSession {
        try await DeviceSession.start { configuration in
            var dashboard = DashboardConfiguration(host: "127.0.0.1", port: 0)
            dashboard.frameInterval = .milliseconds(50)
            configure(&dashboard)
            configuration.dashboard = dashboard
        }
    }

    /// The `frame` events received so far, parsed.
    static func frames(_ client: HTTP1Client) -> [[String: Any]] {
        client.events().filter { $0.event == "frame" }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.data.utf8)) as? [String: Any]
        }
    }

    static func activities(_ frame: [String: Any]) -> [[String: Any]] {
        (frame["activities"] as? [[String: Any]]) ?? []
    }

    @Test("the page is one self-contained document that opens the event stream")
    func page() async throws {
        let device = try await Self.start()
        let port = try #require(device.server.dashboardPort)
        #expect(device.server.dashboardURL == "http://127.0.0.1:\(port)/")
        let client = try await HTTP1Client.get(port: port, path: "/")
        #expect(await client.wait { $0.response().map { $0.body.count > 10_000 } ?? false })
        let (head, body) = try #require(client.response())
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.lowercased().contains("content-type: text/html; charset=utf-8"))
        let html = String(decoding: body, as: UTF8.self)
        #expect(html.contains("new EventSource(\"events\""))
        #expect(html.contains("<style>") && html.contains("<script>"))
        // Nothing is fetched from elsewhere: no external scripts, styles, fonts or images.
        #expect(
            !html.contains("src=\"http") && !html.contains("href=\"http") && !html.contains("url(http")
                && !html.contains("@import"))
        let missing = try await HTTP1Client.get(port: port, path: "/nope")
        #expect(await missing.wait { $0.response()?.head.hasPrefix("HTTP/1.1 404") ?? false })
        await client.close()
        await missing.close()
        await device.stop()
    }

    @Test("a page gets a frame at once, then one with each push's state, alert and outcome")
    func framesFollowPushes() async throws {
        let device = try await Self.start()
        let port = try #require(device.server.dashboardPort)
        let stream = try await HTTP1Client.get(port: port, path: "/events")
        #expect(await stream.wait { !Self.frames($0).isEmpty })
        let head = try #require(stream.response()?.head.lowercased())
        #expect(head.contains("content-type: text/event-stream"))
        let first = try #require(Self.frames(stream).first)
        #expect(first["total"] as? Int == 0)

        try await device.push(
            timestamp: device.now, state: #"{"status":"on-the-way","minutes":12}"#,
            extra: #""alert":{"title":"Your order is on its way","body":"Sam has it"},"relevance-score":80"#,
            priority: "10")
        #expect(await stream.wait { Self.frames($0).contains { ($0["total"] as? Int) == 1 } })
        let frame = try #require(Self.frames(stream).last { ($0["total"] as? Int) == 1 })
        let shown = try #require(Self.activities(frame).first?["activity"] as? [String: Any])
        #expect((shown["content-state"] as? [String: Any])?["minutes"] as? Int == 12)
        #expect(shown["lifecycle"] as? String == "active")
        #expect(shown["relevance-score"] as? Double == 80)
        let push = try #require((frame["timeline"] as? [[String: Any]])?.last)
        #expect(push["alert-title"] as? String == "Your order is on its way")
        #expect(push["alert-body"] as? String == "Sam has it")
        #expect(push["outcome"] as? String == "rendered")
        #expect(push["priority"] as? Int == 10)
        #expect(push["status"] as? Int == 200)
        #expect((frame["notable"] as? [Any])?.isEmpty == true)

        // An older timestamp: dropped by the device, and listed as notable with the reason.
        try await device.push(timestamp: device.now - 60, state: #"{"status":"late","minutes":1}"#)
        #expect(await stream.wait { Self.frames($0).contains { (($0["notable"] as? [Any])?.count ?? 0) == 1 } })
        let later = try #require(Self.frames(stream).last)
        let notable = try #require((later["notable"] as? [[String: Any]])?.first)
        #expect(notable["outcome"] as? String == "dropped-old")
        #expect((notable["outcome-reasons"] as? [String])?.first?.contains("not newer than") == true)
        #expect((later["outcomes"] as? [String: Any])?["dropped-old"] as? Int == 1)
        #expect((later["lifecycles"] as? [String: Any])?["active"] as? Int == 1)
        await stream.close()
        await device.stop()
    }

    @Test("a search narrows the activities drawn; the counts stay over every activity")
    func search() async throws {
        let device = try await Self.start { $0.shownActivities = 2 }
        for prefix in ["aa", "bb", "cc"] {
            try await device.push(to: prefix + String(repeating: "0", count: 62))
        }
        let port = try #require(device.server.dashboardPort)
        let all = try await HTTP1Client.get(port: port, path: "/events")
        let search = try await HTTP1Client.get(port: port, path: "/events?q=BB")
        #expect(await all.wait { !Self.frames($0).isEmpty })
        #expect(await search.wait { !Self.frames($0).isEmpty })
        let everything = try #require(Self.frames(all).first)
        #expect(everything["total"] as? Int == 3)
        #expect(everything["matched"] as? Int == 3)
        #expect(Self.activities(everything).count == 2)
        let found = try #require(Self.frames(search).first)
        #expect(found["total"] as? Int == 3)
        #expect(found["matched"] as? Int == 1)
        #expect(found["query"] as? String == "BB")
        let token = (Self.activities(found).first?["activity"] as? [String: Any])?["update-token"] as? String
        #expect(token?.hasPrefix("bb") == true)
        await all.close()
        await search.close()
        await device.stop()
    }

    @Test("names, presentations and the sender's reasons from the scenario reach the page")
    func scenarioDetails() async throws {
        let scenario = try ScenarioLoader().load(
            yaml: """
                liveline: 1
                activities:
                  - name: order-7
                    attributes-type: DeliveryAttributes
                    content-state: { status: placed, minutes: 30 }
                    presentation:
                      tint: orange
                      compact-trailing: "{{ state.minutes }} min"
                """, file: "t.yaml"
        ).scenario
        let device = try await Self.start { $0.describe(scenario, tokens: [Harness.token]) }
        try await device.push()
        let record = try #require(device.server.pushes(token: Harness.token).last)
        device.server.annotatePush(id: record.id, reason: "beat courier-assigned · budget 11/12")
        let port = try #require(device.server.dashboardPort)
        let stream = try await HTTP1Client.get(port: port, path: "/events?q=order")
        #expect(await stream.wait { Self.frames($0).contains { !Self.activities($0).isEmpty } })
        let frame = try #require(Self.frames(stream).last)
        let item = try #require(Self.activities(frame).first)
        #expect(item["name"] as? String == "order-7")
        let presentation = try #require(item["presentation"] as? [String: Any])
        #expect(presentation["tint"] as? String == "orange")
        let trailing = try #require(presentation["compact-trailing"] as? [[String: String]])
        #expect(trailing == [["field": "state.minutes"], ["text": " min"]])
        let push = try #require((frame["timeline"] as? [[String: Any]])?.last)
        #expect(push["plan-reason"] as? String == "beat courier-assigned · budget 11/12")
        #expect(push["name"] as? String == "order-7")
        await stream.close()
        await device.stop()
    }

    @Test("GET /frame answers one frame as JSON; other methods are refused")
    func frameEndpoint() async throws {
        let device = try await Self.start()
        try await device.push()
        let port = try #require(device.server.dashboardPort)
        let client = try await HTTP1Client.get(port: port, path: "/frame")
        #expect(await client.wait { $0.response().map { !$0.body.isEmpty } ?? false })
        let body = try #require(client.response()?.body)
        let frame = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        #expect(frame["total"] as? Int == 1)
        await client.close()
        await device.stop()
    }

    /// Audiences a test sets, as a sender (the bridge) would report them.
    final class Audiences: DashboardAudienceSource {
        let shown = Mutex<[DashboardAudience]>([])
        func dashboardAudiences() -> [DashboardAudience] { shown.withLock { $0 } }
    }

    @Test("a sender's audiences reach the page as counts and fan-out progress, with one follower's device drawn")
    func audiences() async throws {
        let source = Audiences()
        let fanOut = DashboardAudience.FanOut(
            event: "update", state: "running", contentState: #"{"minutes":12}"#, answered: 40_000, audience: 100_000,
            failed: 3,
            pushesPerSecond: 52_000, lagSeconds: 0.8, failures: ["Unregistered": 2, "TooManyRequests": 1])
        source.shown.withLock {
            $0 = [
                DashboardAudience(
                    key: "match-1", updating: 100_000, awaitingStart: 20, onChannel: 5, retrying: 1, catchingUp: 0,
                    inDoubt: 3, removed: 2,
                    sampleToken: Harness.token, fanOut: fanOut)
            ]
        }
        let device = try await Self.start { $0.audiences = source }
        try await device.push(timestamp: device.now, state: #"{"status":"on-the-way","minutes":12}"#)
        let port = try #require(device.server.dashboardPort)
        let stream = try await HTTP1Client.get(port: port, path: "/events")
        #expect(await stream.wait { Self.frames($0).contains { ($0["audiences"] as? [Any])?.isEmpty == false } })
        let frame = try #require(Self.frames(stream).last)
        let view = try #require((frame["audiences"] as? [[String: Any]])?.first)
        let audience = try #require(view["audience"] as? [String: Any])
        #expect(audience["key"] as? String == "match-1")
        #expect(
            audience["total"] as? Int == 100_025 && audience["awaiting-start"] as? Int == 20
                && audience["removed"] as? Int == 2 && audience["in-doubt"] as? Int == 3)
        let progress = try #require(audience["fan-out"] as? [String: Any])
        #expect(progress["answered"] as? Int == 40_000 && progress["audience"] as? Int == 100_000)
        #expect(progress["pushes-per-second"] as? Double == 52_000 && progress["lag-seconds"] as? Double == 0.8)
        #expect((progress["failures"] as? [String: Int]) == ["Unregistered": 2, "TooManyRequests": 1])
        let sample = try #require((view["sample"] as? [String: Any])?["activity"] as? [String: Any])
        #expect((sample["content-state"] as? [String: Any])?["minutes"] as? Int == 12)

        // The sender's progress moves without a push to the mock: the next frame shows it.
        source.shown.withLock {
            $0[0].fanOut?.state = "done"; $0[0].fanOut?.answered = 100_000
        }
        #expect(
            await stream.wait { client in
                Self.frames(client).contains { frame in
                    let audience = (frame["audiences"] as? [[String: Any]])?.first?["audience"] as? [String: Any]
                    return (audience?["fan-out"] as? [String: Any])?["state"] as? String == "done"
                }
            })
        await stream.close()
        await device.stop()
    }

    @Test("without a dashboard, none is served")
    func noDashboard() async throws {
        let device = try await DeviceSession.start()
        #expect(device.server.dashboardURL == nil)
        #expect(device.server.dashboardPort == nil)
        await device.stop()
    }
}
