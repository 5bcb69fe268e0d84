import Foundation
import NIOCore
import LivelineTestSupport
import NIOPosix
import Testing
@testable import LivelineBridge

/// `max-connections`: the bridge closes one connection too many as it arrives, counts it in
/// `/metrics` and logs a warning with the number; the connections open are served.
struct ConnectionLimitTests {
    /// An idle TCP connection to `port` (no request sent).
    static func openIdle(_ port: Int) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
    }

    @Test func aConnectionPastMaxConnectionsIsClosedCountedAndLogged() async throws {
        try await RunningBridge.with(configure: { $0.maxConnections = 2 }) { bridge in
            let limiter = bridge.server.connectionLimiter
            let first = try await Self.openIdle(bridge.port)
            let second = try await Self.openIdle(bridge.port)
            try await eventually("the bridge to count two connections") { limiter.openConnections == 2 }
            let third = try await Self.openIdle(bridge.port)
            try await eventually("the third connection to be closed on arrival") {
                limiter.refused == 1 && !third.isActive
            }
            #expect(first.isActive && second.isActive)
            #expect(limiter.openConnections == 2)
            #expect(bridge.logs.lines.contains { $0.contains("refused a connection: 2 are open") })
            try? await third.close()

            // With a place freed, a request is served (by curl) and the refusal shows in /metrics.
            try await second.close()
            try await eventually("the freed place") { limiter.openConnections < 2 }
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
        #expect(
            text.contains(
                "bridge.yaml:2:18: error: expected max-connections as a whole number from 1 to 1000000, found '0'"),
            "\(text)")
    }
}
