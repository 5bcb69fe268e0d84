import Foundation
import Liveline
import LivelineMockAPNs
import Testing

@Suite("Broadcast channels and pushes")
struct BroadcastTests {
    static let bundle = "com.example.app"
    static let subscribedToken = String(repeating: "ef", count: 32)

    func createChannel(_ client: RawH2Client, policy: Int = 0) async throws -> String {
        let response = try await client.request(
            path: "/1/apps/\(Self.bundle)/channels", headers: [],
            body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#)
        #expect(response.status == 201)
        return try #require(response.headers["apns-channel-id"])
    }

    func broadcast(
        _ client: RawH2Client, channel: String?, body: String, expiration: String? = "0", priority: String = "10"
    ) async throws -> RawResponse {
        var headers: [(String, String)] = [("apns-push-type", "liveactivity"), ("apns-priority", priority)]
        if let channel { headers.append(("apns-channel-id", channel)) }
        if let expiration { headers.append(("apns-expiration", expiration)) }
        return try await client.request(path: "/4/broadcasts/apps/\(Self.bundle)", headers: headers, body: body)
    }

    @Test("channels are created, read, listed and deleted")
    func channelManagement() async throws {
        let device = try await DeviceSession.start()
        let client = device.client
        let id = try await createChannel(client, policy: 1)
        let read = try await client.request(
            method: "GET", path: "/1/apps/\(Self.bundle)/channels", headers: [("apns-channel-id", id)], body: nil)
        #expect(read.status == 200)
        #expect(read.body == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        let list = try await client.request(
            method: "GET", path: "/1/apps/\(Self.bundle)/all-channels", headers: [], body: nil)
        #expect(list.body == #"{"channels":["\#(id)"]}"#)
        let delete = try await client.request(
            method: "DELETE", path: "/1/apps/\(Self.bundle)/channels", headers: [("apns-channel-id", id)], body: nil)
        #expect(delete.status == 204)
        let again = try await client.request(
            method: "GET", path: "/1/apps/\(Self.bundle)/channels", headers: [("apns-channel-id", id)], body: nil)
        #expect(again.reason == "ChannelNotRegistered")
        let bad = try await client.request(
            path: "/1/apps/\(Self.bundle)/channels", headers: [], body: #"{"push-type":"Alert"}"#)
        #expect(bad.reason == "CannotCreateChannelConfig")
        let missing = try await client.request(
            method: "GET", path: "/1/apps/\(Self.bundle)/channels", headers: [], body: nil)
        #expect(missing.reason == "MissingChannelId")
        await device.stop()
    }

    @Test("a broadcast fans out to activities subscribed by input-push-channel and by --subscribe")
    func broadcastFansOut() async throws {
        let channel = "P5ocAtToW3dhrAny47TF1g=="
        let device = try await DeviceSession.start { $0.subscriptions = [channel: [Self.subscribedToken]] }
        #expect(device.activity(Self.subscribedToken)?.lifecycle == .pending)
        let started = try #require(
            try await device.push(
                event: "start", extra: DeviceTests.startExtra + #","input-push-channel":"\#(channel)""#,
                to: DeviceTests.pushToStart))
        #expect(started.outcome == .rendered)

        let response = try await broadcast(
            device.client, channel: channel,
            body: Harness.payload(timestamp: device.now + 1, state: #"{"status":"all","minutes":1}"#))
        #expect(response.status == 200)
        #expect(response.headers["apns-request-id"] != nil)
        let event = try #require(device.server.pushes(token: "channel:\(channel)").last)
        #expect(event.deliveries.count == 2)
        #expect(event.deliveries.allSatisfy { $0.outcome == .rendered })
        for activity in device.server.activities() {
            #expect(activity.contentState?.objectValue?["status"] == .string("all"))
            #expect(activity.channels == [channel])
        }
        #expect(device.server.stats().broadcasts == 1)
        await device.stop()
    }

    @Test("a broadcast cannot start an activity, and an old one is dropped like any push")
    func broadcastRules() async throws {
        let channel = "P5ocAtToW3dhrAny47TF1g=="
        let device = try await DeviceSession.start { $0.subscriptions = [channel: [Self.subscribedToken]] }
        _ = try await broadcast(
            device.client, channel: channel,
            body: Harness.payload(event: "start", timestamp: device.now, extra: DeviceTests.startExtra))
        let start = try #require(device.server.pushes(token: "channel:\(channel)").last?.deliveries.first)
        #expect(start.outcome == .wouldNotRender)
        #expect(start.reasons.contains { $0.contains("cannot start") })
        _ = try await broadcast(device.client, channel: channel, body: Harness.payload(timestamp: device.now + 10))
        _ = try await broadcast(device.client, channel: channel, body: Harness.payload(timestamp: device.now + 5))
        #expect(device.server.pushes(token: "channel:\(channel)").last?.deliveries.first?.outcome == .droppedOld)
        await device.stop()
    }

    @Test("broadcast errors: missing channel id, unknown channel, expiration on a policy-0 channel, size over 5120")
    func broadcastErrors() async throws {
        let device = try await DeviceSession.start()
        let client = device.client
        let id = try await createChannel(client)
        let body = Harness.payload(timestamp: device.now)
        #expect(try await broadcast(client, channel: nil, body: body).reason == "MissingChannelId")
        #expect(try await broadcast(client, channel: "not base64!", body: body).reason == "BadChannelId")
        #expect(
            try await broadcast(client, channel: "AAAAAAAAAAAAAAAAAAAAAA==", body: body).reason
                == "ChannelNotRegistered")
        #expect(
            try await broadcast(client, channel: id, body: body, expiration: "1900000000").reason == "BadExpirationDate"
        )
        let prefix = String(body.dropLast())
        let fits = prefix + #","pad":""# + String(repeating: "x", count: 5120 - prefix.utf8.count - 10) + #""}"#
        #expect(fits.utf8.count == 5120)
        #expect(try await broadcast(client, channel: id, body: fits).status == 200)
        let tooLarge = prefix + #","pad":""# + String(repeating: "x", count: 5121 - prefix.utf8.count - 10) + #""}"#
        let response = try await broadcast(client, channel: id, body: tooLarge)
        #expect(response.status == 413)
        #expect(response.reason == "PayloadTooLarge")
        await device.stop()
    }

    @Test("a policy-1 channel hands its latest message to a new subscriber")
    func storedMessageReachesNewSubscriber() async throws {
        let device = try await DeviceSession.start()
        let id = try await createChannel(device.client, policy: 1)
        _ = try await broadcast(
            device.client, channel: id,
            body: Harness.payload(timestamp: device.now + 1, state: #"{"status":"stored","minutes":3}"#))
        let started = try #require(
            try await device.push(
                event: "start", extra: DeviceTests.startExtra + #","input-push-channel":"\#(id)""#,
                to: DeviceTests.pushToStart))
        let activity = try #require(device.server.activities().first { $0.id == started.activityID })
        #expect(activity.contentState?.objectValue?["status"] == .string("stored"))
        await device.stop()
    }
}
