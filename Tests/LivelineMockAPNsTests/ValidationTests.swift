import Foundation
import Liveline
import LivelineMockAPNs
import Testing

@Suite("Validation, as APNs does it")
struct ValidationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var method = "POST"
        var path = "/3/device/\(Harness.token)"
        var headers: [(String, String)] = Harness.headers()
        var body: String? = Harness.payload(timestamp: Harness.seconds(Harness.epoch))
        var status: Int
        var reason: String
        var testDescription: String { "\(name) → \(status) \(reason)" }
    }

    static let cases: [Case] = [
        Case(name: "GET on a device path", method: "GET", body: nil, status: 405, reason: "MethodNotAllowed"),
        Case(name: "an empty token", path: "/3/device/", status: 400, reason: "MissingDeviceToken"),
        Case(name: "a token that is not hex", path: "/3/device/not-a-token", status: 400, reason: "BadDeviceToken"),
        Case(name: "an unknown path", path: "/2/device/abcd", status: 404, reason: "BadPath"),
        Case(
            name: "a repeated apns-topic", headers: Harness.headers(extra: [("apns-topic", Harness.topic)]),
            status: 400, reason: "DuplicateHeaders"),
        Case(
            name: "no apns-push-type", headers: Harness.headers(pushType: nil), status: 400, reason: "InvalidPushType"),
        Case(
            name: "an unknown apns-push-type", headers: Harness.headers(pushType: "banner"), status: 400,
            reason: "InvalidPushType"),
        Case(
            name: "push type alert to a Live Activity topic", headers: Harness.headers(pushType: "alert"),
            status: 400, reason: "InvalidPushType"),
        Case(name: "no apns-topic", headers: Harness.headers(topic: nil), status: 400, reason: "MissingTopic"),
        Case(
            name: "a topic without .push-type.liveactivity", headers: Harness.headers(topic: "com.example.app"),
            status: 400, reason: "DeviceTokenNotForTopic"),
        Case(name: "priority 7", headers: Harness.headers(priority: "7"), status: 400, reason: "BadPriority"),
        Case(
            name: "an apns-expiration that is not a number",
            headers: Harness.headers(extra: [("apns-expiration", "tomorrow")]),
            status: 400, reason: "BadExpirationDate"),
        Case(
            name: "an apns-id that is not a UUID", headers: Harness.headers(extra: [("apns-id", "1234")]),
            status: 400, reason: "BadMessageId"),
        Case(
            name: "an apns-collapse-id over 64 bytes",
            headers: Harness.headers(extra: [("apns-collapse-id", String(repeating: "c", count: 65))]),
            status: 400, reason: "BadCollapseId"),
        Case(name: "no body", body: nil, status: 400, reason: "PayloadEmpty"),
        Case(name: "a body that is not JSON", body: "aps: {}", status: 400, reason: "PayloadEmpty"),
        Case(
            name: "a body of 4097 bytes",
            body: #"{"aps":{},"pad":""# + String(repeating: "x", count: 4097 - 18) + #""}"#,
            status: 413, reason: "PayloadTooLarge"),
        Case(
            name: "a body of 70,000 bytes, beyond the stream window",
            body: #"{"pad":""# + String(repeating: "x", count: 70_000) + #""}"#,
            status: 413, reason: "PayloadTooLarge"),
    ]

    @Test("each malformed request gets APNs's status and reason", arguments: cases)
    func malformedRequestsGetTheirReason(_ testCase: Case) async throws {
        let server = try await Harness.start()
        let client = try await Harness.connect(server)
        let response = try await client.request(
            method: testCase.method, path: testCase.path, headers: testCase.headers, body: testCase.body)
        #expect(response.status == testCase.status)
        #expect(response.reason == testCase.reason)
        #expect(response.headers["apns-id"] != nil)
        await client.close()
        await server.shutdown()
    }

    @Test("a body of exactly 4096 bytes is accepted")
    func fullSizeBodyIsAccepted() async throws {
        let server = try await Harness.start()
        let client = try await Harness.connect(server)
        let prefix = Harness.payload(timestamp: Harness.seconds(Harness.epoch)).dropLast()
        let body = prefix + #","pad":""# + String(repeating: "x", count: 4096 - prefix.utf8.count - 10) + #""}"#
        #expect(body.utf8.count == 4096)
        let response = try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(), body: String(body))
        #expect(response.status == 200)
        await client.close()
        await server.shutdown()
    }

    @Test("a valid push is answered 200 with an empty body, apns-id and apns-unique-id")
    func validPushIsAnswered200() async throws {
        let server = try await Harness.start()
        let client = try await Harness.connect(server)
        let response = try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(),
            body: Harness.payload(timestamp: Harness.seconds(Harness.epoch)))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        let id = try #require(response.headers["apns-id"])
        #expect(id.count == 36 && id == id.lowercased())
        #expect(response.headers["apns-unique-id"] != nil)
        await client.close()
        await server.shutdown()
    }

    @Test("the apns-id a client sends is echoed back")
    func apnsIDIsEchoed() async throws {
        let server = try await Harness.start()
        let client = try await Harness.connect(server)
        let id = "123e4567-e89b-12d3-a456-4266554400a0"
        let response = try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(extra: [("apns-id", id)]),
            body: Harness.payload(timestamp: Harness.seconds(Harness.epoch)))
        #expect(response.status == 200)
        #expect(response.headers["apns-id"] == id)
        await client.close()
        await server.shutdown()
    }

    @Test("a token first used with one topic is rejected with another as DeviceTokenNotForTopic")
    func tokenIsBoundToItsTopic() async throws {
        let server = try await Harness.start()
        let client = try await Harness.connect(server)
        let ts = Harness.seconds(Harness.epoch)
        let first = try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(), body: Harness.payload(timestamp: ts))
        #expect(first.status == 200)
        let other = try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(topic: "com.other.app.push-type.liveactivity"),
            body: Harness.payload(timestamp: ts + 1))
        #expect(other.status == 400)
        #expect(other.reason == "DeviceTokenNotForTopic")
        await client.close()
        await server.shutdown()
    }

    @Test("uppercase hex tokens address the same device as lowercase ones")
    func tokensAreCaseInsensitive() async throws {
        let server = try await Harness.start()
        let client = try await Harness.connect(server)
        let response = try await client.request(
            path: "/3/device/\(Harness.token.uppercased())", headers: Harness.headers(),
            body: Harness.payload(timestamp: Harness.seconds(Harness.epoch)))
        #expect(response.status == 200)
        #expect(server.activity(token: Harness.token)?.counters.rendered == 1)
        await client.close()
        await server.shutdown()
    }
}
