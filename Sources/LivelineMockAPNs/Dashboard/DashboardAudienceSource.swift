/// Where the dashboard learns about audiences: keys whose every push a sender fans out to many
/// devices (the bridge's followers). The mock only sees the devices; the sender knows which key
/// each belongs to and how far its fan-out got, so it answers here (the CLI wires the bridge in).
///
/// Asked on an event loop while a page is connected, at most once per frame: answer from what is
/// at hand (a snapshot refreshed elsewhere), never by waiting on a store.
public protocol DashboardAudienceSource: Sendable {
    /// The audiences to draw now, most relevant first; a few, not every key.
    func dashboardAudiences() -> [DashboardAudience]
}
