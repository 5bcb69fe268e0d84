import Foundation
import Liveline
import LivelineMockAPNs
import LivelineMockTestSupport
import NIOPosix

/// Starts mocks for tests: h2c on an ephemeral loopback port, one event loop, a manual clock.
enum Harness {
    /// 2027-01-15T08:00:00Z, the default start of the virtual clock.
    static let epoch: Millis = 1_800_000_000_000
    static let topic = "com.example.app.push-type.liveactivity"
    static let token = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    static var clientGroup: MultiThreadedEventLoopGroup { .singleton }

    static func start(
        clock: ManualClock = ManualClock(start: epoch), _ configure: (inout MockAPNsConfiguration) -> Void = { _ in }
    ) async throws -> MockAPNsServer {
        try await LoopbackMockAPNs.start(.h2c, logLevel: .warning) { configuration in
            configuration.clock = clock
            configure(&configuration)
        }.server
    }

    static func connect(_ server: MockAPNsServer) async throws -> RawH2Client {
        try await RawH2Client.connect(port: server.port, group: clientGroup)
    }

    /// Apple's documented Live Activity headers.
    static func headers(
        jwt: String? = nil, priority: String? = "10", topic: String? = Harness.topic,
        pushType: String? = "liveactivity",
        extra: [(String, String)] = []
    ) -> [(String, String)] {
        var headers: [(String, String)] = []
        if let jwt { headers.append(("authorization", "bearer \(jwt)")) }
        if let topic { headers.append(("apns-topic", topic)) }
        if let pushType { headers.append(("apns-push-type", pushType)) }
        if let priority { headers.append(("apns-priority", priority)) }
        return headers + extra
    }

    /// An `aps` payload. `state` and `extra` are JSON fragments.
    static func payload(
        event: String = "update", timestamp: Int64, state: String = #"{"status":"on-the-way","minutes":12}"#,
        extra: String = ""
    ) -> String {
        #"{"aps":{"timestamp":\#(timestamp),"event":"\#(event)","content-state":\#(state)\#(extra.isEmpty ? "" : "," + extra)}}"#
    }

    static func seconds(_ millis: Millis) -> Int64 { millis / 1000 }
}
