import ArgumentParser
import Foundation
import LivelineAPNs

/// `--topic` and `--env`: the app and the APNs environment, from the flags or else from
/// `LIVELINE_APNS_TOPIC` and `LIVELINE_APNS_ENVIRONMENT`.
struct APNsAppOptions: ParsableArguments {
    enum Environment: String, ExpressibleByArgument, CaseIterable {
        case sandbox, production

        /// Apple's push endpoint for this environment.
        var endpoint: APNsEndpoint { self == .production ? .production : .sandbox }
    }

    @Option(
        help: ArgumentHelp(
            "The app's bundle id (or LIVELINE_APNS_TOPIC); Liveline adds .push-type.liveactivity to apns-topic.",
            valueName: "bundle-id"))
    var topic: String?

    @Option(
        help: ArgumentHelp(
            "APNs environment: sandbox (development builds; the default) or production (TestFlight, App Store); or LIVELINE_APNS_ENVIRONMENT.",
            valueName: "env"))
    var env: Environment?

    private static var variables: [String: String] { ProcessInfo.processInfo.environment }

    /// The environment: `--env`, else `LIVELINE_APNS_ENVIRONMENT`, else sandbox.
    func environment() throws(CredentialsError) -> Environment {
        if let env { return env }
        guard let text = Self.variables[Credentials.environmentVariable], !text.isEmpty else { return .sandbox }
        guard let value = Environment(rawValue: text) else {
            throw .invalid(
                setting: Credentials.environmentVariable, value: text, problem: "expected sandbox or production")
        }
        return value
    }

    /// The bundle id from `--topic` or `LIVELINE_APNS_TOPIC`, checked; nil when neither is set.
    func bundleID() throws(CredentialsError) -> String? {
        let setting =
            topic.map { ("--topic", $0) }
            ?? Self.variables[Credentials.topicVariable].flatMap { $0.isEmpty ? nil : (Credentials.topicVariable, $0) }
        guard let (origin, value) = setting else { return nil }
        if let problem = APNsIdentifiers.topicProblem(value) {
            throw .invalid(setting: origin, value: value, problem: problem)
        }
        return value
    }
}
