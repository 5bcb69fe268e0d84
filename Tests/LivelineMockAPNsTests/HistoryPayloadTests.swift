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
        #expect(try JSONDecoder().decode(AnsweredPush.self, from: Data(json.utf8)).payload == nil)
        await device.stop()
    }

    @Test func keepsEveryPayloadKeepsEveryBody() async throws {
        let device = try await DeviceSession.start { $0.keepsEveryPayload = true }
        try await sendFour(device)
        #expect(device.server.pushes(token: Harness.token).allSatisfy { $0.payload != nil })
        await device.stop()
    }

    @Test func aRefusedBodyIsDroppedUnlessItWasRefusedForWhatItSays() async throws {
        let device = try await DeviceSession.start()
        device.server.setFaults(FaultPlan(errors: [FaultPlan.ErrorRate(error: .internalServerError, rate: 1)]))
        try await device.push(timestamp: 1_000, state: #"{"status":"outage","minutes":4}"#)
        device.server.setFaults(.none)
        let tooLong = String(repeating: "x", count: 5_000)
        try await device.push(timestamp: 1_001, state: #"{"status":"\#(tooLong)","minutes":3}"#)
        try await device.push(timestamp: 1_002, state: #"{"status":"c","minutes":2}"#)
        let history = device.server.pushes(token: Harness.token)
        #expect(history.map(\.status) == [500, 413, 200])
        // The outage says nothing about the body; the 413 is about the body itself.
        #expect(history.map { $0.payload != nil } == [false, true, true])
        await device.stop()
    }

    @Test func theHistoryGivesBackExactlyWhatWasRecorded() async throws {
        let device = try await DeviceSession.start()
        let ids = ["0C2A8B1E-7B43-4F7A-9D55-4A0C1B2D3E4F", "0c2a8b1e-7b43-4f7a-9d55-4a0c1b2d3e50"]
        for (offset, id) in ids.enumerated() {
            let response = try await device.client.request(
                path: "/3/device/\(Harness.token)", headers: Harness.headers(priority: "5", extra: [("apns-id", id)]),
                body: Harness.payload(
                    event: "update", timestamp: 1_000 + Int64(offset), state: #"{"status":"a","minutes":1}"#, extra: "")
            )
            #expect(response.status == 200)
        }
        try await device.push(timestamp: 2_000, state: #"{"status":"b","minutes":1}"#)
        let history = device.server.pushes(token: Harness.token)
        #expect(Array(history.map(\.id).prefix(2)) == ids, "apns-ids come back as sent, upper or lower case")
        #expect(history[2].id.count == 36 && history[2].id == history[2].id.lowercased())
        for record in history {
            #expect(record.token == Harness.token && record.channelID == nil && record.kind == .device)
            #expect(record.deliveries.count == 1)
            #expect(
                record.deliveries.first?.activityID == Harness.token
                    && record.deliveries.first?.updateToken == Harness.token)
            #expect(record.deliveries.first?.outcome == .rendered && record.deliveries.first?.lifecycle == .active)
        }
        #expect(history.allSatisfy { $0.deliveries.first?.started == false })
        await device.stop()
    }

    @Test func aLeanHistoryKeepsOnlyTheBodiesThatExplainSomething() async throws {
        let device = try await DeviceSession.start { $0.keepsLastPayload = false }
        try await sendFour(device)
        let history = device.server.pushes(token: Harness.token)
        #expect(history.map { $0.payload == nil } == [true, true, false, true])
        #expect(history.map(\.timestamp) == [1_000, 1_001, 999, 1_002], "order stays checkable without the bodies")
        #expect(
            device.activity()?.contentState?.objectValue?["status"] == .string("c"),
            "the activity still shows the newest state")
        await device.stop()
    }
}
