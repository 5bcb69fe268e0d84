import Foundation
import Hummingbird
import HTTPTypes
import Liveline
import Logging

/// `GET /v1/events/{source}/{event}`: what became of one webhook or feed event, for
/// `liveline bridge send --follow` and for anyone asking "what did my webhook do?".
///
/// ```json
/// {"source": "stripe", "event": "evt_3Q…", "type": "payment_intent.succeeded", "activity-key": "58213",
///  "state": "applied", "reason": null, "received-at": "…", "applied-at": "…",
///  "step": {"outcome": "applied", "at": "…", "next-deadline": "…",
///           "pushes": [{"event": "update", "priority": 5, "reason": "beat preparing", "bytes": 236, "aps": {…}}]},
///  "later-push": null, "activity-status": {… as GET /v1/activities/{key} …}}
/// ```
///
/// `state` and `reason` come from the store, so every instance answers them. `step` (the
/// pushes the step decided, with the engine's reasons) comes from this instance's
/// ``DispatchJournal``: null when another instance ran the step or this one has restarted since.
/// `later-push` is the activity's newest decided push after the event's step, when the engine
/// held the change (min-interval, budget) and a later step sent it. `activity-status` is null
/// when no activity is registered under the event's key: its events wait until one is. Needs a
/// registry API key, like the registry; 404 when the inbox holds no such event.
struct EventStatusAPI: Sendable {
    let store: any RegistryStore
    let registry: ActivityRegistryAPI
    let journal: DispatchJournal?

    func get(_ request: Request, context: some RequestContext) async -> Response {
        var logger = context.logger
        do throws(BridgeHTTPError) {
            logger[metadataKey: "api-key"] = .string(try await registry.authenticator.authenticate(request.headers))
            let source = try Self.part(context.parameters.get("source"), "source")
            let eventID = try Self.part(context.parameters.get("event"), "event id")
            guard
                let status = try await registry.storeCall(
                    logger, { try await store.eventStatus(source: source, eventID: eventID) })
            else {
                throw BridgeHTTPError(
                    .notFound, code: "unknown-event",
                    reason: "no event '\(eventID.prefix(64))' of source '\(source.prefix(64))' is stored")
            }
            return JSONAnswer.make(.ok, try await answer(status, logger: logger))
        } catch {
            logger.info(
                "event status request refused",
                metadata: [
                    "status": .stringConvertible(error.status.code), "error": .string(error.code),
                    "reason": .string(error.reason),
                ])
            return error.response
        }
    }

    private func answer(_ status: InboxEventStatus, logger: Logger) async throws(BridgeHTTPError) -> StateObject {
        var object = StateObject()
        object["source"] = .string(status.source)
        object["event"] = .string(status.eventID)
        object["type"] = .string(status.eventType)
        object["activity-key"] = .string(status.activityKey)
        object[WebhookIngest.deprecatedActivityKey] = .string(status.activityKey)
        object["state"] = .string(status.state.rawValue)
        object["reason"] = JSONAnswer.text(status.reason)
        object["received-at"] = JSONAnswer.time(status.receivedAt)
        object["applied-at"] = status.appliedAt.map(JSONAnswer.time) ?? .null
        let step = await journal?.step(of: status.sequence)
        object["step"] = step.map { .object(Self.json($0)) } ?? .null
        var later: StateValue = .null
        if let step, let journal, let newer = await journal.pushes(of: status.activityKey, after: step.at) {
            later = .object(
                StateObject([("at", JSONAnswer.time(newer.at)), ("pushes", .array(newer.pushes.map(Self.json)))]))
        }
        object["later-push"] = later
        object["activity-status"] =
            try await registry.view(of: status.activityKey, logger: logger).map(StateValue.object) ?? .null
        return object
    }

    private static func json(_ step: DispatchJournal.Step) -> StateObject {
        var object = StateObject()
        switch step.outcome {
        case .applied: object["outcome"] = .string("applied")
        case .ignored: object["outcome"] = .string("ignored")
        case .superseded(let reason):
            object["outcome"] = .string("superseded")
            object["reason"] = .string(reason)
        }
        object["at"] = JSONAnswer.time(step.at)
        object["next-deadline"] = step.nextDeadline.map(JSONAnswer.time) ?? .null
        object["pushes"] = .array(step.pushes.map(json))
        return object
    }

    private static func json(_ push: DispatchJournal.DecidedPush) -> StateValue {
        // The payload as the device receives it; bytes that do not parse show as null.
        let aps: StateValue
        if case .object(let root)? = try? JSONParser.parse(push.payload), let value = root["aps"] {
            aps = value
        } else {
            aps = .null
        }
        return .object(
            StateObject([
                ("event", .string(push.event.rawValue)), ("priority", .int(push.priority)),
                ("reason", .string(push.reason)),
                ("bytes", .int(push.payload.count)), ("aps", aps),
            ]))
    }

    private static func part(_ raw: String?, _ what: String) throws(BridgeHTTPError) -> String {
        let text = raw.flatMap { $0.removingPercentEncoding } ?? ""
        guard (1...256).contains(text.utf8.count),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw BridgeHTTPError(
                .badRequest, code: "bad-event", reason: "the \(what) must be 1 to 256 bytes without control characters")
        }
        return text
    }
}
