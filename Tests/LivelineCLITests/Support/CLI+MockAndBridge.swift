import Foundation
import LivelineTestSupport
import Synchronization
import Testing

extension CLI {
    /// Runs `liveline mock-apns MOCK` and, once it says where it listens, `liveline bridge serve
    /// BRIDGE` on a free loopback port sending to it (`--apns-url`); `body` gets the bridge's
    /// process, base URL and output once it listens, and must end the bridge. Returns the
    /// bridge's result, the mock stopped; nil (an issue recorded) when either never said where
    /// it listens.
    static func withMockAndBridge(
        mock: [String], bridge: [String], environment: [String: String] = [:], timeout: Double = 120,
        _ body: @escaping @Sendable (_ bridge: SpawnedProcess, _ base: String, _ out: OutputBuffer) async -> Void
    ) async throws -> Result? {
        let result = Mutex<Result?>(nil)
        _ = try await run(["mock-apns"] + mock, timeout: timeout + 30) { mockProcess, mockOut in
            defer { mockProcess.interrupt() }
            guard let mockURL = await mockOut.mockURL() else {
                Issue.record("the mock did not say where it listens: \(mockOut.text)")
                return
            }
            let bridged = try? await run(
                ["bridge", "serve"] + bridge + ["--listen", "127.0.0.1:0", "--apns-url", mockURL],
                environment: environment, timeout: timeout
            ) { process, out in
                guard let base = await out.bridgeBase() else {
                    Issue.record("the bridge did not say where it listens: \(out.text)")
                    process.interrupt()
                    return
                }
                await body(process, base, out)
            }
            result.withLock { $0 = bridged }
        }
        return result.withLock { $0 }
    }
}
