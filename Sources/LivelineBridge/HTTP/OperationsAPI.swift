import Hummingbird
import HTTPTypes
import Liveline
import Logging

/// `GET /healthz`, `/readyz` and `/metrics`, for orchestrators and Prometheus; no API key.
///
/// - `/healthz` answers 200 while the process serves HTTP at all: restart it when this fails.
/// - `/readyz` answers 200 with the store's depths when the store answers a query, else 503
///   with the store's error: send no traffic to an instance that cannot store what it
///   acknowledges. While the instance drains (after SIGTERM) it answers 503 `draining`. While
///   APNs refuses the setup of an app in an environment (``APNsHalts``) it answers 503
///   `apns-halted`, with each halt's reason and fix: the pushes wait, and an orchestrator or
///   an operator should know.
/// - `/metrics` is the Prometheus text format of ``BridgeMetrics``; the depth gauges are read
///   from the store at each scrape (kept as they were when the store does not answer).
struct OperationsAPI: Sendable {
    let store: any Store
    let metrics: BridgeMetrics
    let drain: BridgeDrain
    let halts: APNsHalts?

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
        if let halts, case let halted = halts.halted, !halted.isEmpty {
            return Self.halted(halted, probeInterval: halts.probeInterval)
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

    /// 503 `apns-halted`:
    ///
    /// ```json
    /// {"error": "apns-halted", "reason": "APNs refused the setup of ...: 403 InvalidProviderToken: check ...",
    ///  "halted": [{"environment": "production", "app": "com.example.app", "broadcasts": false,
    ///              "status": 403, "apns-reason": "InvalidProviderToken", "fix": "check ...",
    ///              "since": "…", "probes": 3, "next-probe": "…"}],
    ///  "probe-interval-seconds": 5}
    /// ```
    static func halted(_ halted: [APNsHalt], probeInterval: Duration) -> Response {
        let first = halted[0]
        let more = halted.count > 1 ? " (and \(halted.count - 1) more)" : ""
        return JSONAnswer.make(
            .serviceUnavailable,
            [
                "error": .string("apns-halted"),
                "reason": .string(
                    "APNs refused the setup of \(first.scope)\(more): \(first.problem); pushes wait, and sending resumes when a probe succeeds"
                ),
                "halted": .array(
                    halted.map { halt in
                        .object(
                            StateObject([
                                ("environment", .string(halt.scope.environment.rawValue)),
                                ("app", .string(halt.scope.app)), ("broadcasts", .bool(halt.scope.broadcast)),
                                ("status", halt.problem.status.map { .int($0) } ?? .null),
                                ("apns-reason", .string(halt.problem.reason)), ("fix", .string(halt.problem.fix)),
                                ("since", JSONAnswer.time(halt.since)), ("probes", .int(halt.probes)),
                                ("next-probe", JSONAnswer.time(halt.nextProbe)),
                            ]))
                    }),
                "probe-interval-seconds": .double(BridgeClock.seconds(probeInterval)),
            ])
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
