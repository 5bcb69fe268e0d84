import Foundation
import Liveline
import LivelineMockAPNs

/// A mock, a connection to it and its virtual clock, for device-side tests.
struct DeviceSession {
    let server: MockAPNsServer
    let client: RawH2Client
    let clock: ManualClock

    static func start(
        _ configure: @escaping (inout MockAPNsConfiguration) -> Void = { _ in }
    ) async throws -> DeviceSession {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await Harness.start(clock: clock, configure)
        return DeviceSession(server: server, client: try await Harness.connect(server), clock: clock)
    }

    /// UNIX seconds now, on the virtual clock.
    var now: Int64 { clock.now() / 1000 }

    /// Reference-date seconds `offset` seconds from now: what a `Date` field carries.
    func referenceDate(_ offset: Int64 = 0) -> Int64 { now + offset - 978_307_200 }

    /// Sends a raw body to `token` and returns what the device did with it.
    @discardableResult
    func push(_ body: String, to token: String = Harness.token, priority: String = "5") async throws -> DeviceDelivery?
    {
        let response = try await client.request(
            path: "/3/device/\(token)", headers: Harness.headers(priority: priority), body: body)
        guard response.status == 200 else { return nil }
        return server.pushes(token: token).last?.deliveries.first
    }

    /// Sends an `aps` payload built from parts.
    @discardableResult
    func push(
        event: String = "update", timestamp: Int64? = nil, state: String = #"{"status":"on-the-way","minutes":12}"#,
        extra: String = "", to token: String = Harness.token, priority: String = "5"
    ) async throws -> DeviceDelivery? {
        try await push(
            Harness.payload(event: event, timestamp: timestamp ?? now, state: state, extra: extra), to: token,
            priority: priority)
    }

    func activity(_ token: String = Harness.token) -> ActivitySnapshot? { server.activity(token: token) }

    func stop() async {
        await client.close()
        await server.shutdown()
    }
}
