import Foundation
import Hummingbird
import HTTPTypes
import Liveline
import Logging

/// A key's audience: `PUT` and `DELETE /v1/activities/{key}/followers/{device}`, and
/// `POST /v1/activities/{key}/followers` with NDJSON to move an existing audience in.
///
/// The key must be registered (404 otherwise). `PUT` (body `FollowerRequest`) answers 201 for
/// a new follower, 200 for a changed or unchanged one, with the follower (tokens masked); a
/// follower that joins after the story began gets one catch-up push of the current state at
/// once. `DELETE` answers 204, or 404. The import (`Content-Type: application/x-ndjson`, one
/// follower a line with its `device`, at most ``importLimit`` lines) answers 200 with
/// `{"created": n, "updated": n, "unchanged": n}`; a bad line refuses the whole import with
/// 400 naming the line. Every request needs a registry API key.
struct FollowersAPI: Sendable {
    static let importLimit = 10_000

    let store: any RegistryStore & FollowerStore
    let authenticator: RegistryAuthenticator
    let bodyLimit: RequestBodyLimit
    let wake: @Sendable () -> Void
    let clock: @Sendable () -> Millis
    /// The environments a follower may name.
    var environments: APNsEnvironments = .both

    func put(_ request: Request, context: some RequestContext) async -> Response {
        await answer(request, context) { key, logger async throws(BridgeHTTPError) in
            let device = try Self.device(context.parameters.get("device"))
            try JSONContentType.check(request.headers)
            let change = try FollowerRequest(parsing: try await bodyLimit.collect(request))
            let existing = try await storeCall(logger) { try await store.follower(device: device, activityKey: key) }
            let follower = try change.follower(device: device, existing: existing, environments: environments)
            let result = try await storeCall(logger) {
                try await store.putFollowers([follower], activityKey: key, now: clock())
            }
            wake()
            let created = result.first == .created
            logger.info(created ? "follower added" : "follower changed")
            return JSONAnswer.make(created ? .created : .ok, Self.view(follower, environments: environments))
        }
    }

    func delete(_ request: Request, context: some RequestContext) async -> Response {
        await answer(request, context) { key, logger async throws(BridgeHTTPError) in
            let device = try Self.device(context.parameters.get("device"))
            guard try await storeCall(logger, { try await store.deleteFollower(device: device, activityKey: key) })
            else {
                throw BridgeHTTPError(
                    .notFound, code: "unknown-follower",
                    reason: "device '\(device.prefix(64))' does not follow '\(key.prefix(64))'")
            }
            return Response(status: .noContent)
        }
    }

    func importFollowers(_ request: Request, context: some RequestContext) async -> Response {
        await answer(request, context) { key, logger async throws(BridgeHTTPError) in
            let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
                .lowercased()
            guard type == "application/x-ndjson" || type == "application/ndjson" || type == "application/jsonl" else {
                throw BridgeHTTPError(
                    .unsupportedMediaType, code: "unsupported-media-type",
                    reason: "an import is NDJSON: send Content-Type: application/x-ndjson, one follower a line")
            }
            let followers = try FollowerRequest.lines(
                try await bodyLimit.collect(request), limit: Self.importLimit, environments: environments)
            let changes = try await storeCall(logger) {
                try await store.putFollowers(followers, activityKey: key, now: clock())
            }
            wake()
            logger.info("followers imported", metadata: ["followers": .stringConvertible(followers.count)])
            return JSONAnswer.make(
                .ok,
                [
                    "created": .int(changes.filter { $0 == .created }.count),
                    "updated": .int(changes.filter { $0 == .updated }.count),
                    "unchanged": .int(changes.filter { $0 == .unchanged }.count),
                ])
        }
    }

    /// Authenticates, reads the key (which must be registered), runs `body`, and turns a
    /// refusal into its JSON answer (the history API's too).
    func answer(
        _ request: Request, _ context: some RequestContext,
        _ body: (_ key: String, _ logger: Logger) async throws(BridgeHTTPError) -> Response
    ) async -> Response {
        var logger = context.logger
        do throws(BridgeHTTPError) {
            let who = try await authenticator.authenticate(request.headers)
            logger[metadataKey: "api-key"] = .string(who)
            let key = try ActivityRegistryAPI.key(context.parameters.get("key"))
            logger[metadataKey: "activity"] = .string(key)
            guard try await storeCall(logger, { try await store.activity(key) }) != nil else {
                throw BridgeHTTPError(
                    .notFound, code: "unknown-activity",
                    reason: "no activity '\(key.prefix(64))' is registered; register it first")
            }
            return try await body(key, logger)
        } catch {
            logger.info(
                "follower request refused",
                metadata: [
                    "status": .stringConvertible(error.status.code), "error": .string(error.code),
                    "reason": .string(error.reason),
                ])
            return error.response
        }
    }

    func storeCall<T>(_ logger: Logger, _ call: () async throws -> T) async throws(BridgeHTTPError) -> T {
        do {
            return try await call()
        } catch {
            logger.error("follower store call failed", metadata: ["error": .string("\(error)")])
            throw BridgeHTTPError(
                .serviceUnavailable, code: "store-unavailable",
                reason: "the registry's store cannot be reached now; try again later")
        }
    }

    static func device(_ raw: String?) throws(BridgeHTTPError) -> String {
        let device = raw.flatMap { $0.removingPercentEncoding } ?? ""
        try FollowerRequest.checkDevice(device)
        return device
    }

    /// A follower as the answers show it: its platform, tokens masked, and the environment its
    /// APNs tokens go to (an Android phone's has none).
    static func view(_ follower: Follower, environments: APNsEnvironments) -> StateObject {
        if let fcmToken = follower.fcmToken {
            return StateObject([
                ("device", .string(follower.device)), ("platform", .string(Platform.android.rawValue)),
                ("fcm-token", .string(ActivityStatusView.masked(fcmToken))),
            ])
        }
        return StateObject([
            ("device", .string(follower.device)), ("platform", .string(Platform.ios.rawValue)),
            ("update-token", JSONAnswer.text(follower.updateToken.map(ActivityStatusView.masked))),
            ("push-to-start-token", JSONAnswer.text(follower.startToken.map(ActivityStatusView.masked))),
            ("channel", .bool(follower.onChannel)),
            ("environment", .string(environments.resolve(follower.environment).rawValue)),
        ])
    }

    /// The key's followers by state and by environment, as `GET /v1/activities/{key}` shows
    /// them, with the newest failure summaries (a `BadDeviceToken` summed under the environment
    /// the tokens were registered for, with a hint).
    static func view(
        _ counts: FollowerCounts, failures: [FanOutFailureSummary], environments: APNsEnvironments
    ) -> StateObject {
        var object = StateObject([
            ("total", .int(counts.total)), ("updating", .int(counts.updating)),
            ("awaiting-start", .int(counts.awaitingStart)),
            ("on-channel", .int(counts.onChannel)), ("retrying", .int(counts.retrying)),
            ("catching-up", .int(counts.catchingUp)), ("in-doubt", .int(counts.inDoubt)),
        ])
        let byPlatform = counts.byPlatform
        object["platforms"] = .object(StateObject(Platform.allCases.map { ($0.rawValue, .int(byPlatform[$0] ?? 0)) }))
        let byEnvironment = counts.byEnvironment(default: environments.defaultEnvironment)
        object["environments"] = .object(
            StateObject(
                APNsEnvironment.allCases.filter { environments.served.contains($0) || byEnvironment[$0] != nil }.map {
                    ($0.rawValue, StateValue.int(byEnvironment[$0] ?? 0))
                }))
        object["failures"] = .array(
            failures.map { failure in
                var entry = StateObject([
                    ("fan-out", .int(Int(failure.fanOutID))), ("reason", .string(failure.reason)),
                    ("count", .int(failure.count)),
                    ("sample", .array(failure.sample.map(StateValue.string))),
                    ("failed-at", JSONAnswer.time(failure.failedAt)),
                ])
                if let hint = EnvironmentHint.hint(forSummaryReason: failure.reason) { entry["hint"] = .string(hint) }
                return .object(entry)
            })
        return object
    }
}
