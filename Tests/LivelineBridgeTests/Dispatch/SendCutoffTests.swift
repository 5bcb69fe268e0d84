import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineMockTestSupport
import Testing
@testable import LivelineBridge

/// A fan-out sends its pushes as one batch through ``SendCutoff``: every answer comes back in
/// its request's place, and a stop's cutoff ends the wait at once, with nothing for the pushes
/// not yet answered and nothing sent after it.
@Suite struct SendCutoffTests {
    static let headers = PushHeaders(topic: "com.example.app.push-type.liveactivity", priority: .high, expiration: 0)

    /// A request per token, each with its own `apns-id`.
    static func requests(_ count: Int, from first: Int = 0) -> [APNsRequest] {
        (first..<first + count).map { n in
            APNsRequest.push(
                token: String(format: "%064x", n), headers: headers, payload: Array(#"{"aps":{}}"#.utf8),
                apnsID: String(format: "00000000-0000-4000-8000-%012x", n).uppercased())
        }
    }

    /// A mock answering after `latency` milliseconds, and a client to it (the drain tests' rig).
    static func withMock(latency: Millis, _ body: (MockAPNsServer, APNsClient) async throws -> Void) async throws {
        try await DrainRig.with(.sqlite, latency: .fixed(latency), drainTimeout: .seconds(1)) { rig in
            try await body(rig.mock, rig.client)
        }
    }

    @Test func aBatchGivesEachAnswerInItsRequestsPlace() async throws {
        try await Self.withMock(latency: 0) { _, client in
            let requests = Self.requests(300)
            let answers = await SendCutoff().send(requests.map { ($0, client) })
            #expect(answers.count == 300)
            for (request, answer) in zip(requests, answers) {
                guard case .success(let response) = answer else {
                    Issue.record("no answer for \(request.path): \(String(describing: answer))")
                    continue
                }
                #expect(response.status == 200)
                let sentID = request.headers.first { $0.name == "apns-id" }?.value
                #expect(response.apnsID?.lowercased() == sentID?.lowercased())
            }
            #expect(await SendCutoff().send([]).isEmpty)
        }
    }

    @Test func theCutoffEndsABatchsWaitWithNothingForTheUnanswered() async throws {
        // APNs answers after 20 s; the cutoff comes as soon as the batch waits.
        try await Self.withMock(latency: 20_000) { _, client in
            let cutoff = SendCutoff()
            let started = ContinuousClock.now
            let batch = Task { await cutoff.send(Self.requests(50).map { ($0, client) }) }
            cutoff.fire()
            let answers = await batch.value
            #expect(answers.count == 50)
            #expect(answers.allSatisfy { $0 == nil })
            #expect(ContinuousClock.now - started < .seconds(10), "the batch waited past the cutoff")
        }
    }

    @Test func aBatchAfterTheCutoffSendsNothing() async throws {
        try await Self.withMock(latency: 0) { mock, client in
            let cutoff = SendCutoff()
            cutoff.fire()
            let requests = Self.requests(10)
            let answers = await cutoff.send(requests.map { ($0, client) })
            #expect(answers.count == 10 && answers.allSatisfy { $0 == nil })
            // The same client still sends: a push after them arrives, and none of the batch did.
            _ = try await client.send(Self.requests(1, from: 10)[0])
            for n in 0..<10 { #expect(mock.pushes(token: String(format: "%064x", n)).isEmpty) }
            #expect(mock.pushes(token: String(format: "%064x", 10)).count == 1)
        }
    }
}
