import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import LivelineBridge

/// `max-connections`: the bridge closes one connection too many as it arrives, counts it in
/// `/metrics` and logs a warning with the number; the connections open are served.
struct ConnectionLimitTests {
    /// An idle TCP connection to `port` (no request sent), and whether it is still open a moment later.
    static func openIdle(_ port: Int) async throws -> (any Channel, Bool) {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
        try await Task.sleep(for: .milliseconds(200))
        return (channel, channel.isActive)
    }

    @Test func aConnectionPastMaxConnectionsIsClosedCountedAndLogged() async throws {
        try await RunningBridge.with(configure: { $0.maxConnections = 2 }) { bridge in
            let (first, firstOpen) = try await Self.openIdle(bridge.port)
            let (second, secondOpen) = try await Self.openIdle(bridge.port)
            #expect(firstOpen && secondOpen)
            let (third, thirdOpen) = try await Self.openIdle(bridge.port)
            #expect(!thirdOpen, "the third connection is closed on arrival")
            #expect(bridge.server.connectionLimiter.refused == 1)
            #expect(bridge.logs.all.contains { $0.contains("refused a connection: 2 are open") })
            try? await third.close()

            // With a place freed, a request is served (by curl) and the refusal shows in /metrics.
            try await second.close()
            for _ in 0..<250 where bridge.server.connectionLimiter.openConnections >= 2 {
                try await Task.sleep(for: .milliseconds(20))
            }
            let metrics = try await Curl.run("\(bridge.base)/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.body.contains("liveline_connections_refused_total 1"), "\(metrics.body)")
            try await first.close()
        }
    }

    @Test func maxConnectionsMustBeAPositiveNumber() throws {
        let yaml = """
        liveline-bridge: 1
        max-connections: 0
        sources:
          orders:
            verify: none
            event-type: /type
            activity-key: /id
            scenario: delivery.yaml
            events: {}
        """
        let error = #expect(throws: BridgeConfigurationError.self) {
            try BridgeConfigurationLoader().load(yaml: yaml, file: "bridge.yaml")
        }
        let text = error?.description ?? ""
        #expect(text.contains("bridge.yaml:2:18: error: expected max-connections as a whole number from 1 to 1000000, found '0'"), "\(text)")
    }
}
