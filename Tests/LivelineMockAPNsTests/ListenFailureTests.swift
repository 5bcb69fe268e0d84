import Liveline
import LivelineMockAPNs
import Testing

/// A port another server holds is reported with its address and the likely cause, for each of
/// the mock's listeners.
@Suite struct ListenFailureTests {
    private func configuration() -> MockAPNsConfiguration {
        var configuration = MockAPNsConfiguration()
        configuration.port = 0
        configuration.transport = .h2c
        configuration.eventLoopThreads = 1
        return configuration
    }

    private func failure(_ configuration: MockAPNsConfiguration) async -> ListenFailure? {
        do {
            let server = try await MockAPNsServer.start(configuration)
            await server.shutdown()
            return nil
        } catch {
            guard case .bind(let failure) = error else { return nil }
            return failure
        }
    }

    @Test func eachListenerNamesItsAddressAndSetting() async throws {
        let first = try await MockAPNsServer.start(configuration())
        do {
            try await check(against: first)
        } catch {
            await first.shutdown()
            throw error
        }
        await first.shutdown()
    }

    private func check(against first: MockAPNsServer) async throws {
        var mock = configuration()
        mock.port = first.port
        let taken = try #require(await failure(mock))
        #expect(taken.addressInUse && taken.port == first.port && taken.server == "the mock APNs")
        #expect(taken.description.contains("is listening on 127.0.0.1:\(first.port)"))
        #expect(taken.description.contains("--listen"))

        var inspection = configuration()
        inspection.inspection = (host: "127.0.0.1", port: first.port)
        let inspectionTaken = try #require(await failure(inspection))
        #expect(inspectionTaken.addressInUse && inspectionTaken.description.contains("--inspect"))

        var dashboard = configuration()
        dashboard.dashboard = DashboardConfiguration(host: "127.0.0.1", port: first.port)
        let dashboardTaken = try #require(await failure(dashboard))
        #expect(dashboardTaken.addressInUse && dashboardTaken.description.contains("--dashboard"))
    }
}
