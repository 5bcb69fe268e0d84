import Foundation
import LivelineAPNs

// Sends one Live Activity update, as a backend does: the content-state written by Liveline's
// encoder (its `Date` as seconds since 2001, as ActivityKit decodes it), the `liveactivity`
// headers, and APNs's answer.
//
//   SendPush ENDPOINT DEVICE-TOKEN      e.g. SendPush http://127.0.0.1:2197 00fc13ad…

/// `{"aps":{"timestamp":…,"event":"update","content-state":{"status":…,"eta":…}}}`.
func updatePayload(status: String, eta: Millis, now: Millis) -> [UInt8] {
    let state = StateObject([("status", .string(status)), ("eta", .date(eta))])
    var writer = JSONWriter()
    APSEncoder.encode(
        into: &writer, event: .update, timestamp: now / 1000, state: state, encodedKeys: EncodedKeys(state.keys),
        staleDate: nil, dismissalDate: nil, relevance: nil, alert: nil, start: nil)
    return writer.bytes
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: SendPush ENDPOINT DEVICE-TOKEN\n".utf8))
    exit(64)
}
let now = Millis(Date().timeIntervalSince1970 * 1000)
let payload = updatePayload(status: "at-the-door", eta: now + 120_000, now: now)
let headers = PushHeaders(
    topic: LiveActivityTopic.topic(forBundleID: "com.example.delivery"), priority: .high, expiration: 0)

let client = try APNsClient(configuration: .init(endpoint: try APNsEndpoint(url: arguments[1])))
let response: APNsResponse
do {
    response = try await client.send(.push(token: arguments[2], headers: headers, payload: payload))
} catch {
    await client.shutdown()
    FileHandle.standardError.write(Data("SendPush: no answer: \(error)\n".utf8))
    exit(1)
}
await client.shutdown()
print("APNs answered \(response) for \(String(decoding: payload, as: UTF8.self))")
exit(response.isSuccess ? 0 : 1)
