import Liveline
import NIOCore

/// The running dashboard of one mock: its listener, its broadcaster and the tick that drives it.
struct DashboardService: Sendable {
    let channel: any Channel
    let broadcaster: DashboardBroadcaster
    let ticker: RepeatedTask
    let host: String
    let port: Int

    static func start(
        _ configuration: DashboardConfiguration, state: MockAPNsState, budgetPerHour: Int, group: any EventLoopGroup
    ) async throws -> DashboardService {
        let broadcaster = DashboardBroadcaster(state: state, configuration: configuration, budgetPerHour: budgetPerHour)
        let channel = try await DashboardServer.bind(
            host: configuration.host, port: configuration.port, group: group, broadcaster: broadcaster)
        let ticker = DashboardServer.startTicking(
            broadcaster, every: configuration.frameInterval.millis, on: group.next())
        return DashboardService(
            channel: channel, broadcaster: broadcaster, ticker: ticker, host: configuration.host,
            port: channel.localAddress?.port ?? configuration.port)
    }

    /// `http://host:port/`, with IPv6 hosts in brackets.
    var url: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "http://\(shownHost):\(port)/"
    }

    func shutdown() async {
        ticker.cancel()
        try? await channel.close()
    }
}
