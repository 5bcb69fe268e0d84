import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import LivelineBridge

/// `idle-timeout`: a connection that sends nothing, stops half-way through a request, or sits
/// idle after its answer is closed by the bridge once the timeout has passed, and not before.
@Suite struct IdleTimeoutTests {
    /// Connects, sends `bytes`, and waits (up to 40 s) for the bridge to close; returns the
    /// seconds from before connecting to the close. The bridge cannot have started its timer
    /// before that instant, so the seconds are at least the timeout; on a loaded machine this
    /// end's clock may learn of the connection and the close late, so they may be more.
    static func secondsUntilClosed(port: Int, sending bytes: String) async throws -> Double {
        let start = ContinuousClock.now
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
        // On a loaded machine the bridge may already have closed an idle connection before the
        // bytes go out; the close is measured all the same.
        if !bytes.isEmpty { try? await channel.writeAndFlush(ByteBuffer(string: bytes)) }
        let closed = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await channel.closeFuture.get(); return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(40)); return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !closed { try? await channel.close() }
        #expect(closed, "the bridge did not close the connection within 40 s")
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test func idleAndHalfSentConnectionsCloseAfterTheTimeout() async throws {
        try await RunningBridge.with(configure: { $0.idleTimeout = .seconds(3) }) { bridge in
            let silent = try await Self.secondsUntilClosed(port: bridge.port, sending: "")
            let halfHead = try await Self.secondsUntilClosed(
                port: bridge.port, sending: "POST /v1/webhooks/uber HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            let halfBody = try await Self.secondsUntilClosed(
                port: bridge.port,
                sending:
                    "POST /v1/webhooks/uber HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"id\":"
            )
            let afterAnswer = try await Self.secondsUntilClosed(
                port: bridge.port, sending: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            for (what, seconds) in [
                ("silent", silent), ("half a head", halfHead), ("half a body", halfBody),
                ("after an answer", afterAnswer),
            ] {
                #expect(seconds >= 2.9 && seconds < 30, "\(what): closed after \(seconds) s with a 3 s timeout")
            }
            #expect(try await bridge.store.counts().pendingEvents == 0)
        }
    }

    @Test func aBodyDribbledInsideTheIdleTimeoutStillHasTheTimeoutAsItsDeadline() async throws {
        try await RunningBridge.with(configure: { $0.idleTimeout = .seconds(3) }) { bridge in
            // Every timer of the bridge starts after this: at the connection or at the head.
            let start = ContinuousClock.now
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: bridge.port).get()
            let head =
                "POST /v1/webhooks/uber HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
            try? await channel.writeAndFlush(ByteBuffer(string: head))
            // A byte every 250 ms: never idle for the timeout, but never done either.
            var sent = 0
            while channel.isActive, sent < 160 {
                try? await channel.writeAndFlush(ByteBuffer(string: " "))
                sent += 1
                try await Task.sleep(for: .milliseconds(250))
            }
            let elapsed = ContinuousClock.now - start
            #expect(!channel.isActive, "the connection is still open after \(sent) bytes")
            #expect(elapsed >= .milliseconds(2900) && elapsed < .seconds(30), "closed after \(elapsed)")
            try? await channel.close()
            #expect(try await bridge.store.counts().pendingEvents == 0)
        }
    }

    @Test func theTimeoutIsConfigured() throws {
        let yaml = replacing(
            "listen: 127.0.0.1:8080", with: "listen: 127.0.0.1:8080\nidle-timeout: 20s",
            in: ConfigurationErrorTests.valid)
        #expect(
            try BridgeConfigurationLoader().load(yaml: yaml, file: testConfigurationFile).idleTimeout == .seconds(20))
        #expect(try loadExample().idleTimeout == .seconds(75))
        #expect(
            configurationErrors(replacing("20s", with: "0s", in: yaml)).map(\.message) == [
                "expected idle-timeout from 1s to 1h, found '0s'"
            ])
    }
}
