import Foundation
import Liveline
import LivelineMockAPNs
import Testing

/// What the per-token history keeps of each push's body: the last one and every one the device
/// did not render, so memory per activity stays small in load tests without losing what a
/// person debugging looks at.
@Suite struct HistoryPayloadTests {
    func sendFour(_ device: DeviceSession) async throws {
        try await device.push(timestamp: 1_000, state: #"{"status":"a","minutes":4}"#)
        try await device.push(timestamp: 1_001, state: #"{"status":"b","minutes":3}"#)
        try await device.push(timestamp: 999, state: #"{"status":"old","minutes":9}"#)
        try await device.push(timestamp: 1_002, state: #"{"status":"c","minutes":2}"#)
    }

    @Test func renderedBodiesAreDroppedOnceANewerPushArrives() async throws {
        let device = try await DeviceSession.start()
        try await sendFour(device)
        let history = device.server.pushes(token: Harness.token)
        #expect(history.map { $0.deliveries.first?.outcome } == [.rendered, .rendered, .droppedOld, .rendered])
        #expect(history.map { $0.payload == nil } == [true, true, false, false])
        #expect(history[2].payload?.contains(#""status":"old""#) == true)
        #expect(history[3].payload?.contains(#""status":"c""#) == true)
        let json = String(decoding: try JSONEncoder().encode(history[0]), as: UTF8.self)
        #expect(!json.contains("payload"), "a dropped body is left out of the inspection JSON: \(json)")
        #expect(try JSONDecoder().decode(PushRecord.self, from: Data(json.utf8)).payload == nil)
        await device.stop()
    }

    @Test func keepsEveryPayloadKeepsEveryBody() async throws {
        let device = try await DeviceSession.start { $0.keepsEveryPayload = true }
        try await sendFour(device)
        #expect(device.server.pushes(token: Harness.token).allSatisfy { $0.payload != nil })
        await device.stop()
    }
}
