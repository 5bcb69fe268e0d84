import Foundation
import Hummingbird
import HTTPTypes
import Liveline
import Logging

/// "What did the bridge send this activity, why, and what did APNs say?":
/// `GET /v1/activities/{key}/pushes` and `GET /v1/activities/{key}/followers/{device}`.
///
/// `…/pushes` pages the key's delivery history newest first (`?limit=` 1 to 200, 50 by default;
/// `?before=ID` continues from an entry's id, and `next` is the link to the following page): each
/// push with its kind, priority, the engine's reason, the content-state it carried, the outcome,
/// APNs' status, reason and `apns-id`, the instance that sent it and when it was stored, sent and
/// answered; a fan-out's entry has its counts and, per APNs reason, links to a few of the
/// followers it failed for. `…/followers/{device}` shows the follower (tokens masked) with its
/// last push and what became of it for that device. Both read the store, so every instance
/// answers the same, after restarts too. Every request needs a registry API key; an unregistered
/// key or an unknown follower is 404.
struct PushHistoryAPI: Sendable {
    static let defaultLimit = 50
    static let maximumLimit = 200

    let store: any RegistryStore & FollowerStore & HistoryStore
    /// Its authentication, registered-key check and refusals are the followers API's.
    let followers: FollowersAPI

    private func answer(
        _ request: Request, _ context: some RequestContext,
        _ body: (_ key: String, _ logger: Logger) async throws(BridgeHTTPError) -> Response
    ) async -> Response {
        await followers.answer(request, context, body)
    }

    private func storeCall<T>(_ logger: Logger, _ call: () async throws -> T) async throws(BridgeHTTPError) -> T {
        try await followers.storeCall(logger, call)
    }

    func pushes(_ request: Request, context: some RequestContext) async -> Response {
        await answer(request, context) { key, logger async throws(BridgeHTTPError) in
            let limit = try Self.number(
                request.uri.queryParameters.get("limit"), name: "limit", in: 1...Self.maximumLimit)
            let before = try Self.number(request.uri.queryParameters.get("before"), name: "before", in: 1...Int.max)
            let records = try await storeCall(logger) {
                try await store.pushHistory(
                    activityKey: key, before: before.map(Int64.init), limit: limit ?? Self.defaultLimit)
            }
            let next: StateValue =
                records.count == (limit ?? Self.defaultLimit) && records.last != nil
                ? .string(
                    "/v1/activities/\(PushHistoryView.pathPart(key))/pushes?before=\(records[records.count - 1].id)&limit=\(limit ?? Self.defaultLimit)"
                ) : .null
            return JSONAnswer.make(
                .ok,
                [
                    "key": .string(key), "pushes": .array(records.map { .object(PushHistoryView.entry($0)) }),
                    "next": next,
                ])
        }
    }

    func follower(_ request: Request, context: some RequestContext) async -> Response {
        await answer(request, context) { key, logger async throws(BridgeHTTPError) in
            let device = try FollowersAPI.device(context.parameters.get("device"))
            guard
                let follower = try await storeCall(
                    logger, { try await store.follower(device: device, activityKey: key) })
            else {
                throw BridgeHTTPError(
                    .notFound, code: "unknown-follower",
                    reason: "device '\(device.prefix(64))' does not follow '\(key.prefix(64))'")
            }
            var view = FollowersAPI.view(follower, environments: followers.environments)
            let last = try await storeCall(logger) {
                try await store.followerLastPush(device: device, activityKey: key)
            }
            view["last-push"] = last.map { .object(PushHistoryView.lastPush($0)) } ?? .null
            return JSONAnswer.make(.ok, view)
        }
    }

    /// A whole number from the query in `range`; nil when absent.
    static func number(_ raw: String?, name: String, in range: ClosedRange<Int>) throws(BridgeHTTPError) -> Int? {
        guard let raw else { return nil }
        guard let value = Int(raw), range.contains(value) else {
            throw BridgeHTTPError(
                .badRequest, code: "bad-\(name)",
                reason: "\(name) must be a whole number from \(range.lowerBound)"
                    + (range.upperBound == .max ? " up" : " to \(range.upperBound)") + ", not '\(raw.prefix(32))'")
        }
        return value
    }
}
