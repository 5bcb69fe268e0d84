import Foundation
import Liveline
import LivelineMockAPNs
import Testing

/// Apple's documented `curl --http2` request, against the mock over TLS and h2c.
@Suite("Interoperability with curl", .enabled(if: Curl.isAvailable, "needs curl with HTTP/2 on the PATH"))
struct CurlInteroperabilityTests {
    let key = TestKey()

    func start(tls: Bool, clock: ManualClock) async throws -> MockAPNsServer {
        let providerKey = key.providerKey
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-mock-test-\(UUID().uuidString).pem"
        ).path
        return try await Harness.start(clock: clock) {
            $0.authentication = .keys([providerKey])
            $0.transport = tls ? .tls(.selfSigned(writeCertificateTo: path)) : .h2c
        }
    }

    /// The arguments of Apple's example request, with a JWT made here.
    func appleRequest(
        server: MockAPNsServer, jwt: String, payload: String, token: String = Harness.token, priority: String = "10",
        topic: String = Harness.topic
    ) -> [String] {
        var arguments =
            server.usesTLS
            ? ["--http2", "--cacert", server.certificatePath ?? ""]
            : ["--http2-prior-knowledge"]
        arguments += [
            "--header", "apns-topic: \(topic)",
            "--header", "apns-push-type: liveactivity",
            "--header", "apns-priority: \(priority)",
            "--header", "authorization: bearer \(jwt)",
            "--data", payload,
            "\(server.baseURL)/3/device/\(token)",
        ]
        return arguments
    }

    static func payload(_ timestamp: Int64) -> String {
        #"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"currentHealthLevel":0.941,"eventDescription":"Power Panda found a sword!"},"alert":{"title":{"loc-key":"%@ is on an adventure!","loc-args":["Power Panda"]},"body":{"loc-key":"%@ found a sword!","loc-args":["Power Panda"]},"sound":"chime.aiff"}}}"#
    }

    @Test("Apple's curl request over TLS gets 200 and the device shows the content", arguments: [true, false])
    func appleRequestSucceeds(tls: Bool) async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await start(tls: tls, clock: clock)
        let result = try await Curl.run(
            appleRequest(
                server: server, jwt: key.token(at: clock.now()), payload: Self.payload(clock.now() / 1000)))
        #expect(result.status == 200, "curl exit \(result.exitCode): \(result.body)")
        #expect(result.httpVersion == "HTTP/2")
        #expect(result.headers["apns-id"]?.count == 36)
        let activity = try #require(server.activity(token: Harness.token))
        #expect(activity.lifecycle == .active)
        #expect(activity.counters.rendered == 1)
        #expect(activity.contentState?.objectValue?["eventDescription"] == .string("Power Panda found a sword!"))
        #expect(activity.lastAlert != nil)
        if let path = server.certificatePath { try? FileManager.default.removeItem(atPath: path) }
        await server.shutdown()
    }

    @Test("curl sees APNs's error statuses and reasons", arguments: [true, false])
    func curlSeesErrors(tls: Bool) async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await start(tls: tls, clock: clock)
        let jwt = key.token(at: clock.now())
        let payload = Self.payload(clock.now() / 1000)
        let cases: [([String], Int, String)] = [
            (appleRequest(server: server, jwt: jwt, payload: payload, token: "xyz"), 400, "BadDeviceToken"),
            (appleRequest(server: server, jwt: jwt, payload: payload, priority: "1"), 400, "BadPriority"),
            (
                appleRequest(server: server, jwt: jwt, payload: payload, topic: "com.example.app"), 400,
                "DeviceTokenNotForTopic"
            ),
            (
                appleRequest(server: server, jwt: key.token(issuedAt: clock.now() / 1000 - 7200), payload: payload),
                403, "ExpiredProviderToken"
            ),
            (
                appleRequest(
                    server: server, jwt: key.token(issuedAt: clock.now() / 1000, kid: "WRONGKEY00"), payload: payload),
                403, "InvalidProviderToken"
            ),
            (
                appleRequest(
                    server: server, jwt: jwt, payload: "{\"aps\":" + String(repeating: " ", count: 4100) + "{}}"), 413,
                "PayloadTooLarge"
            ),
        ]
        for (arguments, status, reason) in cases {
            let result = try await Curl.run(arguments)
            #expect(result.status == status, "\(reason): \(result.body)")
            #expect(result.reason == reason)
        }
        if let path = server.certificatePath { try? FileManager.default.removeItem(atPath: path) }
        await server.shutdown()
    }

    @Test("the inspection API answers curl with the device view, stats, history, faults and reset")
    func inspectionAPI() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await Harness.start(clock: clock) { $0.inspection = ("127.0.0.1", 0) }
        let base = "http://127.0.0.1:\(try #require(server.inspectionPort))"
        let push = try await Curl.run([
            "--http2-prior-knowledge", "-H", "apns-topic: \(Harness.topic)", "-H", "apns-push-type: liveactivity",
            "--data", Harness.payload(timestamp: clock.now() / 1000), "\(server.baseURL)/3/device/\(Harness.token)",
        ])
        #expect(push.status == 200)

        let activities = try await Curl.run(["\(base)/activities"])
        #expect(activities.status == 200)
        let page = try #require(try JSONSerialization.jsonObject(with: Data(activities.body.utf8)) as? [String: Any])
        #expect(page["total"] as? Int == 1 && page["next"] is NSNull)
        let list = try #require(page["activities"] as? [[String: Any]])
        #expect(list.first?["lifecycle"] as? String == "active")
        #expect((list.first?["counters"] as? [String: Any])?["rendered"] as? Int == 1)
        #expect((list.first?["content-state"] as? [String: Any])?["status"] as? String == "on-the-way")

        let pushes = try await Curl.run(["\(base)/activities/\(Harness.token)/pushes"])
        let history = try #require(try JSONSerialization.jsonObject(with: Data(pushes.body.utf8)) as? [[String: Any]])
        #expect(history.count == 1)
        #expect(history.first?["status"] as? Int == 200)

        let stats = try await Curl.run(["\(base)/stats"])
        #expect(stats.body.contains(#""device-pushes" : 1"#))
        let counters = try await Curl.run(["\(base)/counters"])
        let counted = try #require(try JSONSerialization.jsonObject(with: Data(counters.body.utf8)) as? [String: Any])
        #expect(counted["device-pushes"] as? Int == 1 && counted["activities"] as? Int == 1)
        #expect((counted["statuses"] as? [String: Int])?["200"] == 1)
        #expect(counted["lifecycles"] == nil)

        let faults = try await Curl.run([
            "--data-binary", "errors:\n  - { status: 500, reason: InternalServerError, rate: 1 }\n", "\(base)/faults",
        ])
        #expect(faults.status == 200)
        #expect(server.faults().errors.count == 1)
        let badFaults = try await Curl.run(["--data-binary", "latency: soon", "\(base)/faults"])
        #expect(badFaults.status == 400)

        let reset = try await Curl.run(["-X", "POST", "\(base)/reset"])
        #expect(reset.status == 200)
        #expect(server.activities().isEmpty)
        #expect(try await Curl.run(["\(base)/nowhere"]).status == 404)
        await server.shutdown()
    }
}
