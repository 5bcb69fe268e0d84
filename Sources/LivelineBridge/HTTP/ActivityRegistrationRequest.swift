import Foundation
import Liveline

/// The body of `PUT /v1/activities/{key}`, read and checked:
///
/// ```json
/// {"update-token": "80f7…", "push-to-start-token": "a1b2…", "channel": "dHN0LXNyY2gtY2hubA==",
///  "environment": "production", "source": "doordash", "scenario": "delivery.yaml", "frequent-updates": true}
/// ```
///
/// Every field is optional, and a PUT changes only the fields it names: one that only brings a
/// new update token keeps the rest of the registration, and never touches what the dispatcher
/// keeps (lifecycle, engine state, last push). A field set to `null` removes it (a token the
/// app retired). Unknown fields are refused, so a typo (`update_token`) is not silently lost.
///
/// - Tokens are hex (either case, stored lower-case), an even number of 16 to 400 digits.
/// - `channel` is a broadcast channel id, base64 as APNs gives it.
/// - `environment` is the APNs environment of the tokens and channel: `sandbox` (a development
///   build's) or `production` (TestFlight, App Store); one the bridge does not send to is
///   refused with 422. Without it (or with `null`) they go to the configuration's `apns.environment`.
/// - `source` names the configured source whose scenario the activity plays. Without it the
///   activity keeps its source; a new one takes the only source, or the one whose scenario
///   `scenario` names; with several sources and nothing to tell them apart it is refused.
/// - `scenario` names the scenario file (`delivery.yaml` or `delivery`); given with a
///   source, it must be that source's, so a client never silently gets another story.
/// - `renew` is the key's own renewal, over its scenario's policy: `{"before": "7h30m",
///   "until": "48h"}` (`until` defaults to 24h), `false` for none, `null` for the scenario's.
///   It is checked as a scenario's `renew` is, against the source's activity: 422 otherwise.
/// - `fcm-token` makes the key's own activity an Android phone: its FCM registration token, or
///   `fid:` and its Firebase installation ID (as a follower's, ``FollowerRequest``). Every push
///   of the story (start, updates, end) then goes to it through FCM as the story's `android:`
///   Live Update; a story without an `android:` block sends it nothing, and the answer's
///   `warning` says so. A phone is one platform: with an update token, a push-to-start token or
///   a channel it is refused with 422 `two-platforms` (set theirs to `null` to switch).
/// - After the change the activity needs at least one target (a token or a channel): an
///   activity nothing can reach is refused with 422.
struct ActivityRegistrationRequest: Sendable, Hashable {
    /// A change to one optional field.
    enum Edit<Value: Sendable & Hashable>: Sendable, Hashable {
        case keep
        case set(Value)
        case remove

        func applied(to current: Value?) -> Value? {
            switch self {
            case .keep: current
            case .set(let value): value
            case .remove: nil
            }
        }
    }

    var updateToken: Edit<String> = .keep
    var pushToStartToken: Edit<String> = .keep
    var channel: Edit<String> = .keep
    var environment: Edit<APNsEnvironment> = .keep
    var fcmToken: Edit<String> = .keep
    var source: String?
    var scenario: String?
    var frequentUpdates: Bool?
    var renewal: Edit<RenewalChoice> = .keep
    /// The activity plays for its followers only and needs no target of its own (not stored:
    /// it only lifts the rule that an activity needs one).
    var audience: Bool?

    static let fields = [
        "update-token", "push-to-start-token", "channel", "environment", "source", "scenario", "frequent-updates",
        "audience", "renew", "fcm-token",
    ]

    /// Reads a request body. An empty body is an empty object.
    init(parsing body: [UInt8]) throws(BridgeHTTPError) {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return }
        let document: StateValue
        do {
            document = try JSONParser.parse(body)
        } catch {
            throw BridgeHTTPError(.badRequest, code: "bad-json", reason: "the body is not JSON: \(error)")
        }
        guard case .object(let object) = document else {
            throw Self.bad("the body must be a JSON object such as {\"update-token\": \"…\"}")
        }
        let unknown = object.keys.filter { !Self.fields.contains($0) }
        if !unknown.isEmpty {
            throw BridgeHTTPError(
                .badRequest, code: "unknown-field",
                reason:
                    "unknown field(s) \(unknown.map { "'\($0.prefix(40))'" }.joined(separator: ", ")); known: \(Self.fields.joined(separator: ", "))"
            )
        }
        updateToken = try Self.token(object["update-token"], field: "update-token")
        pushToStartToken = try Self.token(object["push-to-start-token"], field: "push-to-start-token")
        channel = try Self.channel(object["channel"])
        environment = try Self.environment(object["environment"])
        fcmToken = try FollowerRequest.fcmToken(object["fcm-token"])
        source = try Self.name(object["source"], field: "source")
        scenario = try Self.name(object["scenario"], field: "scenario")
        switch object["frequent-updates"] {
        case nil, .null?: frequentUpdates = nil
        case .bool(let flag)?: frequentUpdates = flag
        default: throw Self.bad("frequent-updates must be true or false")
        }
        switch object["audience"] {
        case nil, .null?: audience = nil
        case .bool(let flag)?: audience = flag
        default: throw Self.bad("audience must be true or false")
        }
        renewal = try Self.renewal(object["renew"])
    }

    /// The registration to store for activity `key`, given what is stored already.
    func registration(
        key: String, existing: RegisteredActivity?, sources: [SourceConfiguration],
        environments: APNsEnvironments = .both
    ) throws(BridgeHTTPError) -> ActivityRegistration {
        let targets = ActivityTargets(
            updateToken: updateToken.applied(to: existing?.updateToken),
            pushToStartToken: pushToStartToken.applied(to: existing?.pushToStartToken),
            channelID: channel.applied(to: existing?.channelID),
            environment: try Self.served(environment.applied(to: existing?.environment), by: environments),
            fcmToken: fcmToken.applied(to: existing?.fcmToken))
        let audienceOnly = audience ?? (existing.map { $0.targets.isEmpty } ?? false)
        guard !targets.isEmpty || audienceOnly else {
            throw Self.unprocessable(
                "no-target",
                "an activity needs an update-token, a push-to-start-token or a channel (iPhone), or an fcm-token (Android), to receive pushes, or \"audience\": true when only its followers do"
            )
        }
        if targets.fcmToken != nil,
            targets.updateToken != nil || targets.pushToStartToken != nil || targets.channelID != nil
        {
            throw Self.unprocessable(
                "two-platforms",
                "an activity is one phone: an fcm-token (Android) goes without update-token, push-to-start-token and channel (iPhone); set the other's fields to null to switch"
            )
        }
        let chosen = try self.source(existing: existing, sources: sources)
        let renewal = renewal.applied(to: existing?.renewal)
        if case .on(let before, let until)? = renewal, let source = sources.first(where: { $0.name == chosen }) {
            try Self.check(before: before, until: until, source: source)
        }
        return ActivityRegistration(
            activityKey: key, targets: targets, source: chosen,
            frequentUpdates: frequentUpdates ?? existing?.frequentUpdates ?? false, renewal: renewal)
    }

    /// `"renew"`: `{"before": "7h30m", "until": "48h"}`, `false`, or `null` for the scenario's.
    static func renewal(_ value: StateValue?) throws(BridgeHTTPError) -> Edit<RenewalChoice> {
        switch value {
        case nil: return .keep
        case .null?: return .remove
        case .bool(false)?: return .set(.off)
        case .object(let fields)?:
            let unknown = fields.keys.filter { $0 != "before" && $0 != "until" }
            guard unknown.isEmpty else {
                throw bad(
                    "renew takes before and until, not \(unknown.map { "'\($0.prefix(40))'" }.joined(separator: ", "))")
            }
            guard case .string(let text)? = fields["before"], let before = DurationText.parse(text) else {
                throw bad(
                    "renew needs before, a duration like \"7h30m\": how long into each activity its successor starts")
            }
            var until = Renewal.defaultUntil
            switch fields["until"] {
            case nil, .null?: break
            case .string(let text)?:
                guard let value = DurationText.parse(text) else {
                    throw bad("renew's until must be a duration like \"48h\", not '\(text.prefix(40))'")
                }
                until = value
            default: throw bad("renew's until must be a duration like \"48h\"")
            }
            return .set(.on(before: before, until: until))
        default:
            throw bad("renew must be {\"before\": \"7h30m\"}, false for no renewal, or null for the scenario's")
        }
    }

    /// A key's renewal, checked against the activity its source plays, as a scenario's is.
    private static func check(before: Millis, until: Millis, source: SourceConfiguration) throws(BridgeHTTPError) {
        let activities = source.scenario.activities
        guard activities.indices.contains(source.activityIndex) else { return }
        let activity = activities[source.activityIndex]
        if let problem = Renewal.problem(before: before, until: until, maxDuration: activity.policy.maxDuration) {
            throw unprocessable("bad-renew", problem)
        }
        if case .inputPushChannel? = activity.startBeat.flatMap({ activity.beats[$0].start }) {
            throw unprocessable(
                "bad-renew",
                "'\(activity.name)' starts with input-push-channel, so it cannot renew: it has no update token of its own to end it by"
            )
        }
    }

    /// The name of the source whose scenario the activity plays.
    private func source(existing: RegisteredActivity?, sources: [SourceConfiguration]) throws(BridgeHTTPError) -> String
    {
        let names = sources.map(\.name)
        if let source {
            guard let configured = sources.first(where: { $0.name == source }) else {
                throw Self.unprocessable(
                    "unknown-source",
                    "no source is named '\(source.prefix(64))'; this bridge has \(names.joined(separator: ", "))")
            }
            if let scenario, !Self.scenario(configured.scenario, isNamed: scenario) {
                throw Self.unprocessable(
                    "scenario-mismatch",
                    "source '\(source)' plays \(Self.fileName(configured.scenario)), not '\(scenario.prefix(64))'")
            }
            return source
        }
        if let scenario {
            if let existing, let current = sources.first(where: { $0.name == existing.source }),
                Self.scenario(current.scenario, isNamed: scenario)
            {
                return current.name
            }
            let playing = sources.filter { Self.scenario($0.scenario, isNamed: scenario) }
            guard playing.count == 1, let only = playing.first else {
                throw Self.unprocessable(
                    playing.isEmpty ? "unknown-scenario" : "source-required",
                    playing.isEmpty
                        ? "no source plays a scenario named '\(scenario.prefix(64))'; the sources play \(Set(sources.map { Self.fileName($0.scenario) }).sorted().joined(separator: ", "))"
                        : "sources \(playing.map(\.name).joined(separator: ", ")) all play '\(scenario)'; name one with \"source\""
                )
            }
            return only.name
        }
        if let existing { return existing.source }
        guard sources.count == 1, let only = sources.first else {
            throw Self.unprocessable(
                "source-required",
                "several sources are configured; name one with \"source\" (\(names.joined(separator: ", ")))")
        }
        return only.name
    }

    private static func scenario(_ scenario: Scenario, isNamed name: String) -> Bool {
        let file = fileName(scenario)
        return name == file || name == (file as NSString).deletingPathExtension
    }

    private static func fileName(_ scenario: Scenario) -> String {
        (scenario.file as NSString).lastPathComponent
    }

    static func token(_ value: StateValue?, field: String) throws(BridgeHTTPError) -> Edit<String> {
        switch value {
        case nil: return .keep
        case .null?: return .remove
        case .string(let text)?:
            let digits = text.utf8
            guard (16...400).contains(digits.count), digits.count % 2 == 0,
                digits.allSatisfy({
                    (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0)
                })
            else { throw bad("\(field) must be the token's hex digits (an even number, 16 to 400)") }
            return .set(text.lowercased())
        default:
            throw bad("\(field) must be a string of hex digits, or null to remove it")
        }
    }

    private static func channel(_ value: StateValue?) throws(BridgeHTTPError) -> Edit<String> {
        switch value {
        case nil: return .keep
        case .null?: return .remove
        case .string(let text)?:
            guard text.utf8.count <= 200, let bytes = SignatureEncoding.base64.decode(text.utf8), !bytes.isEmpty else {
                throw bad("channel must be a broadcast channel id in base64, as APNs returned it")
            }
            return .set(text)
        default:
            throw bad("channel must be a base64 string, or null to remove it")
        }
    }

    /// `"environment"`: `sandbox`, `production`, or `null` for the configuration's.
    static func environment(_ value: StateValue?) throws(BridgeHTTPError) -> Edit<APNsEnvironment> {
        switch value {
        case nil: return .keep
        case .null?: return .remove
        case .string(let text)?:
            guard let environment = APNsEnvironment(rawValue: text) else {
                throw bad(
                    "environment must be \"sandbox\" (a development build's tokens) or \"production\" (TestFlight and App Store builds'), not '\(text.prefix(40))'"
                )
            }
            return .set(environment)
        default:
            throw bad("environment must be \"sandbox\" or \"production\", or null for the bridge's default")
        }
    }

    /// `environment`, refused with 422 when the bridge does not send there.
    static func served(
        _ environment: APNsEnvironment?, by environments: APNsEnvironments
    ) throws(BridgeHTTPError) -> APNsEnvironment? {
        guard let environment, !environments.served.contains(environment) else { return environment }
        throw BridgeHTTPError(
            .unprocessableContent, code: "environment-not-served",
            reason:
                "this bridge sends to \(environments.served.map(\.rawValue).joined(separator: " and ")) only, not \(environment.rawValue): add it to apns.environments in the configuration (the key must be enabled for it)"
        )
    }

    private static func name(_ value: StateValue?, field: String) throws(BridgeHTTPError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)? where !text.isEmpty: return text
        default: throw bad("\(field) must be a non-empty string")
        }
    }

    static func bad(_ reason: String) -> BridgeHTTPError {
        BridgeHTTPError(.badRequest, code: "bad-field", reason: reason)
    }

    private static func unprocessable(_ code: String, _ reason: String) -> BridgeHTTPError {
        BridgeHTTPError(.unprocessableContent, code: code, reason: reason)
    }
}
