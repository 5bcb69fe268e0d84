import Foundation
import HTTPTypes
import Liveline

/// Follows one stored webhook through the bridge until its story is told: polls
/// `GET /v1/events/{source}/{event}` until the event is applied (or superseded, or found to
/// wait for a registration) and the push it caused is answered, or the wait runs out. The loop
/// of `liveline bridge send --follow`; read-only, so following never changes what the bridge does.
public struct WebhookFollower: Sendable {
    /// The HTTP client the events API is asked with.
    public var sender: WebhookSender
    /// The bridge's base URL, like `http://127.0.0.1:8080`.
    public var base: String
    /// A registry API key (the events API needs one, like the registry).
    public var apiKey: String
    /// The longest wait for the push to be answered.
    public var timeout: Duration
    /// The pause between two asks.
    public var interval: Duration

    /// A follower asking the bridge at `base` with `apiKey`.
    public init(
        sender: WebhookSender = WebhookSender(timeout: .seconds(10)), base: String, apiKey: String,
        timeout: Duration = .seconds(15),
        interval: Duration = .milliseconds(100)
    ) {
        self.sender = sender
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.apiKey = apiKey
        self.timeout = timeout
        self.interval = interval
    }

    /// The event id, activity key and status (`stored`, `duplicate`) of a webhook's answer
    /// (`{"status": "stored", "event": …, "activity-key": …}`).
    public static func event(inAnswer body: [UInt8]) -> (event: String, activityKey: String?, status: String)? {
        guard case .object(let object)? = try? JSONParser.parse(body), let event = WebhookTrace.text(object["event"])
        else { return nil }
        return (event, WebhookTrace.activityKey(in: object), WebhookTrace.text(object["status"]) ?? "stored")
    }

    /// Follows `eventID` of `source` until it is done or `timeout` passes; `received` is what
    /// the webhook's answer said (`stored` or `duplicate`).
    public func follow(
        source: String, eventID: String, received: String = "stored"
    ) async throws(WebhookSendError) -> WebhookTrace {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let url = "\(base)/v1/events/\(Self.escaped(source))/\(Self.escaped(eventID))"
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(apiKey)"
        headers[.accept] = "application/json"
        while true {
            let answer = try await sender.send(to: url, method: .get, headers: headers, body: [])
            switch answer.status {
            case 200: break
            case 401:
                throw WebhookSendError(
                    "the bridge refused the registry API key (\(answer.text.trimmingCharacters(in: .whitespacesAndNewlines))); pass the key with --api-key or LIVELINE_API_KEY"
                )
            case 404 where answer.text.contains("unknown-event"):
                throw WebhookSendError(
                    "the bridge at \(base) holds no event '\(eventID)' of '\(source)' (was the webhook sent to another bridge?)"
                )
            default:
                throw WebhookSendError(
                    "GET \(url) answered \(answer.status): \(answer.text.trimmingCharacters(in: .whitespacesAndNewlines))"
                )
            }
            guard case .object(let object)? = try? JSONParser.parse(answer.body) else {
                throw WebhookSendError(
                    "GET \(url) answered something that is not a JSON object: \(answer.text.prefix(200))")
            }
            let now = clock.now
            if let conclusion = Self.conclusion(
                object, timedOut: now >= deadline, waitEnds: BridgeClock.now() + (deadline - now).millis)
            {
                return WebhookTrace(answer: object, conclusion: conclusion, received: received)
            }
            try? await Task.sleep(for: min(interval, max(.zero, deadline - clock.now)))
            if Task.isCancelled {
                return WebhookTrace(answer: object, conclusion: .timedOut("interrupted"), received: received)
            }
        }
    }

    /// Whether the story of the event is told, from one answer; nil to keep polling.
    static func conclusion(_ answer: StateObject, timedOut: Bool, waitEnds: Millis) -> WebhookTrace.Conclusion? {
        let trace = WebhookTrace(answer: answer, conclusion: .answered)
        guard let activity = trace.activityStatus else { return .notRegistered }
        switch trace.state {
        case "superseded":
            return .superseded(WebhookTrace.text(answer["reason"]) ?? "no reason recorded")
        case "pending":
            return timedOut
                ? .timedOut(
                    "the event is still pending: is a dispatcher running (the bridge, or another instance on its store)?"
                ) : nil
        default:
            break
        }
        if let step = trace.step, WebhookTrace.text(step["outcome"]) == "ignored" { return .ignored }
        if let step = trace.step, trace.pushes.isEmpty {
            let next = WebhookTrace.text(step["next-deadline"]).flatMap(UTCTime.parse)
            // A held push due within the wait is waited for; otherwise say so now, not at the timeout.
            if let next, next <= waitEnds, !timedOut { return nil }
            return .held(until: next)
        }
        // The step wrote its pushes to the outbox with the event; once the activity has none
        // queued and no event pending, they have been answered (or dead-lettered, which the
        // activity's last error says).
        let queued = WebhookTrace.int(activity["queued-pushes"]) ?? 0
        let pending = WebhookTrace.int(activity["pending-events"]) ?? 0
        if queued == 0, pending == 0, trace.lastPush != nil { return .answered }
        if timedOut {
            let error = WebhookTrace.text(activity["last-error"]).map { " (last error: \($0))" } ?? ""
            return .timedOut(
                "the push was not answered within the wait\(error); it may be retrying: see GET /v1/activities/\(trace.activityKey)"
            )
        }
        return nil
    }

    private static func escaped(_ part: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        return part.addingPercentEncoding(withAllowedCharacters: allowed) ?? part
    }
}
