import Liveline

/// The fault plan in force and what it needs to remember: when it was set (shutdown windows
/// count from then) and each token's recent pushes (`too-many-requests-after`).
///
/// Part of ``MockStorage``; every method runs under ``MockAPNsState``'s lock.
struct FaultState {
    var plan: FaultPlan
    /// When the plan was set, on the mock's clock.
    var since: Millis
    var rateWindows: [String: RecentPushes] = [:]

    /// A fault the plan injects for one push: its error, and what the connection does next.
    struct InjectedFault {
        var error: APNsError
        var directive: ConnectionDirective
    }

    /// The parts of the plan a connection applies itself.
    struct ConnectionFaults {
        var latency: Latency?
        var goAwayEvery: Int?
        var resetEvery: Int?
        var seed: UInt64
    }

    var connectionFaults: ConnectionFaults {
        ConnectionFaults(
            latency: plan.latency, goAwayEvery: plan.goAwayEvery, resetEvery: plan.resetEvery, seed: plan.seed)
    }

    /// The fault for a push to `key` at `now`, drawn with `roll` (in `0..<1`), if any: a token
    /// of the other environment, an unregistered token, a shutdown window, a drawn error, then
    /// the per-token rate limit.
    mutating func fault(for key: String, roll: Double, now: Millis) -> InjectedFault? {
        if plan.isEmpty { return nil }
        if !plan.otherEnvironmentTokens.isEmpty, plan.otherEnvironmentTokens.contains(key) {
            return InjectedFault(error: .badDeviceToken, directive: .none)
        }
        if !plan.unregisteredTokens.isEmpty, plan.unregisteredTokens.contains(key) {
            return InjectedFault(error: .unregistered, directive: .none)
        }
        if plan.shutdownWindows.contains(where: { $0.contains(elapsed: now - since) }) {
            return InjectedFault(error: .shutdown, directive: .goAway(reason: "Shutdown"))
        }
        if let error = plan.error(forRoll: roll) {
            return InjectedFault(error: error, directive: .none)
        }
        if let limit = plan.tooManyRequestsAfter,
            !rateWindows[key, default: RecentPushes()].admit(now: now, limit: limit, window: 60_000)
        {
            return InjectedFault(error: .tooManyRequests, directive: .none)
        }
        return nil
    }
}
