import Foundation
import Hummingbird
import HTTPTypes
import Liveline
import Logging

/// `POST /v1/webhooks/{source}`: a sender's webhook, verified, mapped and stored durably before
/// it is acknowledged.
///
/// The steps, each with its own refusal:
/// 1. the source must be configured (404);
/// 2. the source's rate limit, if it has one, must have room (429 with `Retry-After`, see
///    `SourceRateLimiter`). It is checked before the body is read, so a flood costs no
///    reading, hashing or storing;
/// 3. a declared `Content-Type` must be JSON (415, see `JSONContentType`);
/// 4. the body must fit the configured limit (413, see `RequestBodyLimit`);
/// 5. the source's verifier checks the raw bytes (400 for a malformed request, 401 for a wrong
///    signature, credentials or timestamp; missing or wrong credentials of a bearer, basic or
///    header-value source are 401 with a `WWW-Authenticate` challenge);
/// 6. the mapper reads the event with the source's rules (400 for a body that is not JSON or not
///    UTF-8, 413 for one past `body-keys` or `body-depth`, 422 for JSON the rules cannot read,
///    a blank event id, an activity key ``ActivityKeyRule`` refuses, or an event type a strict
///    source does not know);
/// 7. the event goes into the inbox through the shared ``InboxWriter`` (group commit). Only
///    once its transaction committed is the sender answered: `202 {"status": "stored", "event":
///    ID, "activity": KEY}`, or `200 {"status": "duplicate", …}` for an event the inbox already
///    holds (`GET /v1/events/{source}/{event}` says what became of it). If the store fails
///    the answer is 503, so the sender retries. An event whose type no rule names (under
///    `unknown-events: ignore`) is stored too, to be recorded, and acknowledged the same way.
///
/// After a stored event the dispatcher's wake hook runs, so it does not wait for its next poll.
struct WebhookIngest: Sendable {
    /// What ingest needs of one source, built once.
    struct Source: Sendable {
        var configuration: SourceConfiguration
        var mapper: EventMapper
        var keptHeaders: KeptHeaders
        var rateLimiter: SourceRateLimiter?
        /// Whether verification needs the request's URL (rebuilt from its head only then).
        var signsRequestURL: Bool

        init(_ configuration: SourceConfiguration) {
            self.configuration = configuration
            signsRequestURL = configuration.scheme.signsRequestURL
            mapper = EventMapper(source: configuration)
            keptHeaders = KeptHeaders(source: configuration)
            rateLimiter = configuration.rateLimit.map(SourceRateLimiter.init)
        }
    }

    let sources: [String: Source]
    /// Stream sources, which take no webhooks: named in the 404.
    let streams: Set<String>
    let bodyLimit: RequestBodyLimit
    let inbox: InboxWriter
    let metrics: BridgeMetrics
    let wake: @Sendable () -> Void
    let clock: @Sendable () -> Millis

    init(
        configuration: BridgeConfiguration, inbox: InboxWriter, metrics: BridgeMetrics,
        wake: @escaping @Sendable () -> Void, clock: @escaping @Sendable () -> Millis
    ) {
        var sources: [String: Source] = [:]
        for source in configuration.sources where !source.isStream { sources[source.name] = Source(source) }
        self.sources = sources
        streams = Set(configuration.sources.filter(\.isStream).map(\.name))
        bodyLimit = RequestBodyLimit(limit: configuration.bodyLimit)
        self.inbox = inbox
        self.metrics = metrics
        self.wake = wake
        self.clock = clock
    }

    func respond(to request: Request, context: some RequestContext) async -> Response {
        let name = context.parameters.get("source") ?? ""
        var logger = context.logger
        if streams.contains(name) {
            metrics.webhook(source: "", result: .unknownSource)
            return BridgeHTTPError(
                .notFound, code: "unknown-source", reason: "source '\(name)' reads a stream; it takes no webhooks"
            ).response
        }
        guard let source = sources[name] else {
            metrics.webhook(source: "", result: .unknownSource)
            let known = sources.keys.sorted().joined(separator: ", ")
            logger.info("webhook for an unknown source refused", metadata: ["source": .string(String(name.prefix(64)))])
            return BridgeHTTPError(
                .notFound, code: "unknown-source",
                reason:
                    "no source is named '\(name.prefix(64))' here; this bridge has \(known.isEmpty ? "no sources" : known)"
            ).response
        }
        // Per-request metadata costs a dictionary copy per key: set it only when the logs
        // that carry it (info) are on.
        if logger.logLevel <= .info { logger[metadataKey: "source"] = .string(name) }
        do {
            let (response, result) = try await ingest(request, source: source, logger: &logger)
            metrics.webhook(source: name, result: result)
            return response
        } catch {
            let result = Self.result(of: error)
            metrics.webhook(source: name, result: result)
            logger.info(
                "webhook refused",
                metadata: [
                    "status": .stringConvertible(error.status.code), "error": .string(error.code),
                    "reason": .string(error.reason),
                ])
            return error.response
        }
    }

    private func ingest(
        _ request: Request, source: Source, logger: inout Logger
    ) async throws(BridgeHTTPError) -> (Response, BridgeMetrics.WebhookResult) {
        if let limiter = source.rateLimiter, case .limited(let retryAfter) = limiter.admit(at: .now) {
            throw .rateLimited(source: source.configuration.name, limit: limiter.limit, retryAfter: retryAfter)
        }
        try JSONContentType.check(request.headers)
        let body = try await bodyLimit.collect(request)
        let receivedAt = clock()

        do {
            _ = try source.configuration.verifier.verify(
                body: body, headers: request.headers, url: source.signsRequestURL ? Self.url(of: request) : "",
                now: BridgeClock.unixSeconds(receivedAt))
        } catch {
            var refusal = BridgeHTTPError(error)
            if refusal.status == .unauthorized,
                let challenge = source.configuration.scheme.challenge(realm: source.configuration.name)
            {
                refusal.headers[.wwwAuthenticate] = challenge
            }
            throw refusal
        }
        let mapped: MappedEvent
        do {
            mapped = try source.mapper.map(body: body, headers: request.headers)
        } catch {
            throw BridgeHTTPError(error)
        }
        if logger.logLevel <= .info {
            // A delivery id the scheme does not sign is not the event's key (the body hash is),
            // but it is what the sender's dashboard shows: log it beside.
            if case .header(let name)? = source.configuration.eventID, !source.configuration.scheme.signsEventIDHeaders,
                let field = HTTPField.Name(name), let delivery = request.headers[field]
            {
                logger[metadataKey: "delivery"] = .string(String(delivery.prefix(128)))
            }
            logger[metadataKey: "event"] = .string(mapped.eventID)
            logger[metadataKey: "activity"] = .string(mapped.activityKey)
            logger[metadataKey: "type"] = .string(mapped.eventType)
        }

        let event = mapped.inboxEvent(
            source: source.configuration, body: body, headers: source.keptHeaders.select(from: request.headers),
            receivedAt: receivedAt)
        let stored: InsertResult
        do {
            stored = try await inbox.insert(event)
        } catch {
            logger.error(
                "webhook not stored",
                metadata: [
                    "error": .string("\(error)"), "source": .string(source.configuration.name),
                    "event": .string(mapped.eventID),
                ])
            throw BridgeHTTPError(
                .serviceUnavailable, code: "store-unavailable",
                reason: "the event could not be stored and is not acknowledged; send it again later")
        }

        switch stored {
        case .stored(let sequence):
            wake()
            logger.info(
                "webhook stored",
                metadata: ["sequence": .stringConvertible(sequence), "ignored": .stringConvertible(mapped.isIgnored)])
            var answer = StateObject([
                ("status", .string("stored")), ("event", .string(mapped.eventID)),
                ("activity-key", .string(mapped.activityKey)),
                (Self.deprecatedActivityKey, .string(mapped.activityKey)),
            ])
            if mapped.isIgnored { answer["ignored"] = .bool(true) }
            return (JSONAnswer.make(.accepted, answer), mapped.isIgnored ? .ignored : .stored)
        case .duplicate:
            logger.info("webhook was a duplicate")
            return (
                JSONAnswer.make(
                    .ok,
                    [
                        "status": .string("duplicate"), "event": .string(mapped.eventID),
                        "activity-key": .string(mapped.activityKey),
                        Self.deprecatedActivityKey: .string(mapped.activityKey),
                    ]), .duplicate
            )
        }
    }

    /// The activity key's field before `activity-key`, still answered for clients that read it;
    /// deprecated.
    static let deprecatedActivityKey = "activity"

    /// The URL the sender posted to, for schemes that sign it (`ForwardedURL`).
    static func url(of request: Request) -> String {
        ForwardedURL.url(headers: request.headers, authority: request.head.authority, path: request.head.path)
    }

    private static func result(of error: BridgeHTTPError) -> BridgeMetrics.WebhookResult {
        switch error.status.code {
        case 401: .unauthorized
        case 413: .tooLarge
        case 429: .rateLimited
        case 415: .unsupportedMediaType
        case 422: .unmappable
        case 503: .storeFailed
        default: error.code == "bad-json" ? .badJSON : .badRequest
        }
    }
}
