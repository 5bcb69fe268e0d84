import Hummingbird
import HTTPTypes
import Liveline
import Logging

/// `GET /healthz`, `/readyz` and `/metrics`, for orchestrators and Prometheus; no API key.
///
/// - `/healthz` answers 200 while the process serves HTTP at all: restart it when this fails.
/// - `/readyz` answers 200 with the store's depths when the store answers a query, else 503
///   with the store's error: send no traffic to an instance that cannot store what it
///   acknowledges. While the instance drains (after SIGTERM) it answers 503 `draining`.
/// - `/metrics` is the Prometheus text format of ``BridgeMetrics``; the depth gauges are read
///   from the store at each scrape (kept as they were when the store does not answer).
struct OperationsAPI: Sendable {
    let store: any Store
    let metrics: BridgeMetrics
    let drain: BridgeDrain

    func healthz(_ request: Request, context: some RequestContext) -> Response {
        JSONAnswer.make(.ok, ["status": .string("alive")])
    }

    func readyz(_ request: Request, context: some RequestContext) async -> Response {
        if drain.isDraining {
            return BridgeHTTPError(
                .serviceUnavailable, code: "draining",
                reason: "this instance is shutting down: it finishes its pushes in flight and takes no new webhooks"
            ).response
        }
        do {
            let counts = try await store.counts()
            metrics.setDepths(counts)
            return JSONAnswer.make(
                .ok,
                [
                    "status": .string("ready"), "pending-events": .int(counts.pendingEvents),
                    "outbox": .int(counts.outbox),
                    "dead-letters": .int(counts.deadLetters), "activities": .int(counts.activities),
                ])
        } catch {
            context.logger.warning("not ready: the store does not answer", metadata: ["error": .string("\(error)")])
            return BridgeHTTPError(
                .serviceUnavailable, code: "store-unavailable", reason: "the store does not answer: \(error)"
            ).response
        }
    }

    func metrics(_ request: Request, context: some RequestContext) async -> Response {
        do {
            metrics.setDepths(try await store.counts())
        } catch {
            context.logger.warning(
                "metrics: depths not refreshed, the store does not answer", metadata: ["error": .string("\(error)")])
        }
        return JSONAnswer.make(.ok, bytes: metrics.exposition(), contentType: BridgeMetrics.contentType)
    }
}
