import Foundation
import Testing
@testable import LivelineBridge

/// The bridge's HTTP/1 server refuses oversized header sections (NIO's decoder: 80 KiB of
/// names and values per request) with 400 and closes that connection, and goes on serving.
/// Sent with curl, which builds the requests nobody here wrote.
@Suite struct HeaderLimitTests {
    func withHeaderFile(_ lines: [String], _ body: (String) async throws -> Void) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-headers-\(UUID().uuidString)").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await body(file)
    }

    @Test func tooManyHeadersAreA400AndTheBridgeGoesOn() async throws {
        try await RunningBridge.with { bridge in
            let many = (0..<5_000).map { "X-Filler-\($0): \(String(repeating: "a", count: 16))" }
            try await withHeaderFile(many) { file in
                let answer = try await Curl.run("\(bridge.base)/v1/webhooks/doordash", ["-H", "@\(file)"], body: bytes(WebhookIngestTests.doorDash))
                #expect(answer.status == 400)
            }
            let health = try await Curl.run("\(bridge.base)/healthz")
            #expect(health.status == 200)
            #expect(try await bridge.store.counts().pendingEvents == 0)
        }
    }

    @Test func oneHugeHeaderIsA400AndAFittingOneIsNot() async throws {
        try await RunningBridge.with { bridge in
            try await withHeaderFile(["X-Huge: " + String(repeating: "b", count: 100_000)]) { file in
                let answer = try await Curl.run("\(bridge.base)/healthz", ["-H", "@\(file)"])
                #expect(answer.status == 400)
            }
            try await withHeaderFile(["X-Large: " + String(repeating: "b", count: 60_000)]) { file in
                let answer = try await Curl.run("\(bridge.base)/healthz", ["-H", "@\(file)"])
                #expect(answer.status == 200)
            }
        }
    }
}
