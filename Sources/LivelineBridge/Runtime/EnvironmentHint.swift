import LivelineAPNs

/// What the bridge says when APNs refuses a token with `BadDeviceToken`, which is also its
/// answer to a token of the other environment: a development build's token (sandbox) sent to
/// production, or the reverse.
enum EnvironmentHint {
    /// The hint for a token registered for `environment`.
    static func text(registered environment: APNsEnvironment) -> String {
        "it was registered for \(environment.rawValue) and may be a \(environment.other.rawValue) token (\(environment.other == .sandbox ? "a development build's" : "a TestFlight or App Store build's")): register it with \"environment\": \"\(environment.other.rawValue)\""
    }

    /// The reason a fan-out's failure summary counts a refused token under: APNs' reason, with
    /// the environment the token was registered for when the refusal may mean the other one.
    static func summaryReason(_ problem: TokenProblem, registered environment: APNsEnvironment) -> String {
        problem.mayBelongToOtherEnvironment ? "\(problem.reason) (\(environment.rawValue))" : problem.reason
    }

    /// The hint for a failure summary's reason made by ``summaryReason(_:registered:)``; nil
    /// for any other reason.
    static func hint(forSummaryReason reason: String) -> String? {
        for environment in APNsEnvironment.allCases
        where reason == "\(APNsReason.badDeviceToken.rawValue) (\(environment.rawValue))" {
            return text(registered: environment)
        }
        return nil
    }
}
