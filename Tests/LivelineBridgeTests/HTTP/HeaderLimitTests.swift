import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import LivelineBridge

/// The bridge's HTTP/1 server refuses oversized header sections (NIO's decoder: 80 KiB of
/// names and values per request) with 431 and requests it cannot read with 400, each with the
/// bridge's JSON error body, closes that connection, and goes on serving. Sent with curl, which
/// builds the requests nobody here wrote, and as raw bytes where curl would not send them.
@Suite struct HeaderLimitTests {
    func withHeaderFile(_ lines: [String], _ body: (String) async throws -> Void) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-headers-\(UUID().uuidString)"
        ).path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await body(file)
    }

    /// The JSON body of a refusal, with its code.
    static func expectJSONRefusal(
        _ answer: Curl.Answer, _ code: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        #expect(answer.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
        #expect(answer.headers["connection"] == "close", sourceLocation: sourceLocation)
        #expect(
            try jsonObject(answer.body)["error"] as? String == code, "\(answer.body)", sourceLocation: sourceLocation)
    }

    /// Sends `bytes` on a new connection and reads what comes back until the bridge closes it.
    static func raw(_ port: Int, _ bytes: String) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: bytes))
            var answer = ""
            for try await buffer in inbound { answer += String(buffer: buffer) }
            return answer
        }
    }

    @Test func tooManyHeadersAreA431AndTheBridgeGoesOn() async throws {
        try await RunningBridge.with { bridge in
            let many = (0..<5_000).map { "X-Filler-\($0): \(String(repeating: "a", count: 16))" }
            try await withHeaderFile(many) { file in
                let answer = try await Curl.run(
                    "\(bridge.base)/v1/webhooks/doordash", ["-H", "@\(file)"], body: bytes(WebhookIngestTests.doorDash))
                #expect(answer.status == 431)
                try Self.expectJSONRefusal(answer, "headers-too-large")
            }
            let health = try await Curl.run("\(bridge.base)/healthz")
            #expect(health.status == 200)
            #expect(try await bridge.store.counts().pendingEvents == 0)
        }
    }

    @Test func oneHugeHeaderIsA431AndAFittingOneIsNot() async throws {
        try await RunningBridge.with { bridge in
            try await withHeaderFile(["X-Huge: " + String(repeating: "b", count: 100_000)]) { file in
                let answer = try await Curl.run("\(bridge.base)/healthz", ["-H", "@\(file)"])
                #expect(answer.status == 431)
                try Self.expectJSONRefusal(answer, "headers-too-large")
            }
            try await withHeaderFile(["X-Large: " + String(repeating: "b", count: 60_000)]) { file in
                let answer = try await Curl.run("\(bridge.base)/healthz", ["-H", "@\(file)"])
                #expect(answer.status == 200)
            }
        }
    }

    @Test func aRequestTheDecoderCannotReadIsA400WithAJSONBody() async throws {
        try await RunningBridge.with { bridge in
            for request in [
                "GARBAGE\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n",
                "POST /v1/webhooks/uber HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}",
            ] {
                let answer = try await Self.raw(bridge.port, request)
                #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)")
                #expect(answer.lowercased().contains("content-type: application/json\r\n"), "\(answer)")
                let body = String(answer[(answer.range(of: "\r\n\r\n")?.upperBound ?? answer.endIndex)...])
                #expect(try jsonObject(body)["error"] as? String == "bad-http", "\(answer)")
            }
            #expect(try await Curl.run("\(bridge.base)/healthz").status == 200)
            #expect(try await bridge.store.counts().pendingEvents == 0)
        }
    }
}
