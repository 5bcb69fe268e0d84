import Foundation
import Hummingbird
import HTTPTypes
import Liveline
import Logging

/// The registry API: `PUT`, `GET` and `DELETE /v1/activities/{key}`, for the app's backend to
/// say where an activity's pushes go and to see how it is doing.
///
/// Every request needs a registry API key (`RegistryAuthenticator`). A `PUT` answers 201 for
/// a new activity and 200 for a changed one, with the activity as `GET` shows it
/// (`ActivityStatusView`), then wakes the dispatcher so a waiting event can go out to the new
/// token at once; its body is `ActivityRegistrationRequest`. `DELETE` answers 204, or 404
/// for an activity that is not registered.
///
/// The key in the path is percent-decoded; it must meet ``ActivityKeyRule``, as webhooks' keys do.
struct ActivityRegistryAPI: Sendable {
    /// Renders an activity's current content-state as JSON bytes; the dispatcher owns it.
    typealias ContentState = @Sendable (RegisteredActivity) -> [UInt8]?

    let store: any RegistryStore & FollowerStore & RenewalStore
    let authenticator: RegistryAuthenticator
    let sources: [SourceConfiguration]
    let bodyLimit: RequestBodyLimit
    let contentState: ContentState
    /// What the device behind the activity shows, when the bridge can see it (its embedded
    /// mock APNs); shown as `device`.
    let device: DeviceView?
    let wake: @Sendable () -> Void
    let clock: @Sendable () -> Millis
    /// The environments a registration may name.
    var environments: APNsEnvironments = .both

    func put(_ request: Request, context: some RequestContext) async -> Response {
        await answer(request, context) { key, logger async throws(BridgeHTTPError) in
            try JSONContentType.check(request.headers)
            let change = try ActivityRegistrationRequest(parsing: try await bodyLimit.collect(request))
            let existing = try await storeCall(logger) { try await store.activity(key) }
            let registration = try change.registration(
                key: key, existing: existing, sources: sources, environments: environments)
            let created = try await storeCall(logger) { try await store.registerActivity(registration, now: clock()) }
            wake()
            logger.info(
                created ? "activity registered" : "activity registration changed",
                metadata: [
                    "source": .string(registration.source),
                    "environment": .string(environments.resolve(registration.targets.environment).rawValue),
                    "update-token": .string(registration.targets.updateToken.map(ActivityStatusView.masked) ?? "none"),
                    "push-to-start-token": .string(
                        registration.targets.pushToStartToken.map(ActivityStatusView.masked) ?? "none"),
                    "platform": .string(registration.targets.platform.rawValue),
                ])
            let answer = try await status(of: key, answering: created ? .created : .ok, logger: logger)
            if registration.targets.fcmToken != nil, !Self.hasAndroidStory(registration.source, in: sources) {
                logger.warning(
                    "an Android phone registered for a story without an android: block is sent nothing",
                    metadata: ["source": .string(registration.source)])
            }
            return answer
        }
    }

    func get(_ request: Request, context: some RequestContext) async -> Response {
        await answer(request, context) { key, logger async throws(BridgeHTTPError) in
            try await status(of: key, answering: .ok, logger: logger)
        }
    }

    func delete(_ request: Request, context: some RequestContext) async -> Response {
        await answer(request, context) { key, logger async throws(BridgeHTTPError) in
            guard try await storeCall(logger, { try await store.deleteActivity(key) }) else {
                throw Self.notRegistered(key)
            }
            wake()
            logger.info("activity deleted")
            return Response(status: .noContent)
        }
    }

    /// Authenticates, reads the key, runs `body`, and turns a refusal into its JSON answer.
    private func answer(
        _ request: Request, _ context: some RequestContext,
        _ body: (_ key: String, _ logger: Logger) async throws(BridgeHTTPError) -> Response
    ) async -> Response {
        var logger = context.logger
        do {
            let who = try await authenticator.authenticate(request.headers)
            logger[metadataKey: "api-key"] = .string(who)
            let key = try Self.key(context.parameters.get("key"))
            logger[metadataKey: "activity"] = .string(key)
            return try await body(key, logger)
        } catch {
            logger.info(
                "registry request refused",
                metadata: [
                    "status": .stringConvertible(error.status.code), "error": .string(error.code),
                    "reason": .string(error.reason),
                ])
            return error.response
        }
    }

    /// The activity as `GET` shows it, or 404.
    private func status(
        of key: String, answering status: HTTPResponse.Status, logger: Logger
    ) async throws(BridgeHTTPError) -> Response {
        guard let view = try await view(of: key, logger: logger) else { throw Self.notRegistered(key) }
        return JSONAnswer.make(status, view)
    }

    /// The activity as `GET` shows it; nil when it is not registered.
    func view(of key: String, logger: Logger) async throws(BridgeHTTPError) -> StateObject? {
        guard let activity = try await storeCall(logger, { try await store.activity(key) }) else { return nil }
        let pending = try await storeCall(logger) { try await store.pendingEvents(for: key) }
        let queued = try await storeCall(logger) { try await store.queuedPushes(for: key) }
        let inDoubt = try await storeCall(logger) { try await store.startInDoubt(for: key) }
        let renewal = try await storeCall(logger) { try await store.newestRenewal(activityKey: key) }
        var view = ActivityStatusView(
            activity: activity, pendingEvents: pending, queuedPushes: queued, startInDoubt: inDoubt,
            contentState: contentState(activity),
            source: sources.first { $0.name == activity.source }, environments: environments, renewal: renewal
        ).json
        if let device, let shown = device(activity) { view["device"] = .object(shown) }
        let followers = try await storeCall(logger) { try await store.followerCounts(activityKey: key) }
        if followers.total > 0 {
            let failures = try await storeCall(logger) { try await store.fanOutFailures(activityKey: key, limit: 20) }
            view["followers"] = .object(FollowersAPI.view(followers, failures: failures, environments: environments))
        }
        return view
    }

    /// A store call whose failure is logged and answers 503.
    func storeCall<T>(_ logger: Logger, _ call: () async throws -> T) async throws(BridgeHTTPError) -> T {
        do {
            return try await call()
        } catch {
            logger.error("registry store call failed", metadata: ["error": .string("\(error)")])
            throw BridgeHTTPError(
                .serviceUnavailable, code: "store-unavailable",
                reason: "the registry's store cannot be reached now; try again later")
        }
    }

    /// Whether `source`'s story has an `android:` block (an unknown source: nothing to warn of).
    static func hasAndroidStory(_ source: String, in sources: [SourceConfiguration]) -> Bool {
        guard let configured = sources.first(where: { $0.name == source }),
            configured.scenario.activities.indices.contains(configured.activityIndex)
        else { return true }
        return configured.scenario.activities[configured.activityIndex].android != nil
    }

    static func key(_ raw: String?) throws(BridgeHTTPError) -> String {
        let key = raw.flatMap { $0.removingPercentEncoding } ?? ""
        if let problem = ActivityKeyRule.problem(with: key) {
            throw BridgeHTTPError(.badRequest, code: "bad-activity-key", reason: problem)
        }
        return key
    }

    private static func notRegistered(_ key: String) -> BridgeHTTPError {
        BridgeHTTPError(.notFound, code: "unknown-activity", reason: "no activity '\(key.prefix(64))' is registered")
    }
}
