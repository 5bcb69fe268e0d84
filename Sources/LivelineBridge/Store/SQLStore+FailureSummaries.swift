import Foundation
import Liveline

/// Failure summaries: per fan-out (`fanout_failures`) or per renewal's history entry
/// (`renewal_failures`) and reason, how many devices failed and a few of them, by the tail of
/// their token and by device name, so a history entry links to the followers it failed for.
extension SQLStore {
    /// Where a summary is kept.
    enum FailureSummaries {
        /// A fan-out's, by its id.
        case fanOut
        /// A renewal's push to the followers, by its history entry's id.
        case renewal

        var table: String { self == .fanOut ? "fanout_failures" : "renewal_failures" }
        var idColumn: String { self == .fanOut ? "fanout_id" : "history_id" }
    }

    /// How many of a summary's tokens and devices it names.
    static let summarySample = 5

    /// A token as a summary names it: its last 8 characters.
    static func sampleToken(_ hex: String) -> String { "…" + String(hex.suffix(8)) }

    /// Adds `count` failures for `reason` to the summary of `id`, naming the tokens and devices
    /// given until it names ``summarySample`` of each.
    static func addFailures(
        _ summaries: FailureSummaries, id: Int64, activityKey: String, reason: String, count: Int, tokens: [String],
        devices: [String], now: Millis, _ tx: any SQLTransaction
    ) async throws {
        let existing = try await tx.run(
            "SELECT count, sample, devices FROM \(summaries.table) WHERE \(summaries.idColumn) = $1 AND reason = $2",
            [.int(id), .text(reason)]
        ).first
        let total = Int64(count) + (try existing?.int(0) ?? 0)
        let sample = (try existing.map { try $0.text(1).split(separator: " ").map(String.init) } ?? []) + tokens
        let named = (try existing.map { try $0.text(2).split(separator: "\n").map(String.init) } ?? []) + devices
        try await tx.run(
            """
            INSERT INTO \(summaries.table) (\(summaries.idColumn), activity_key, reason, count, sample, failed_at, devices)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (\(summaries.idColumn), reason) DO UPDATE SET count = excluded.count, sample = excluded.sample,
                failed_at = excluded.failed_at, devices = excluded.devices
            """,
            [
                .int(id), .text(activityKey), .text(reason), .int(total),
                .text(sample.prefix(summarySample).joined(separator: " ")), .int(now),
                .text(named.prefix(summarySample).joined(separator: "\n")),
            ]
        )
    }

    /// The summaries of `ids` in `summaries`, by id, each list by reason.
    static func failureSummaries(
        _ summaries: FailureSummaries, of ids: [Int64], _ tx: any SQLTransaction
    ) async throws -> [Int64: [FanOutFailureSummary]] {
        guard !ids.isEmpty else { return [:] }
        var found: [Int64: [FanOutFailureSummary]] = [:]
        for row in try await tx.run(
            """
            SELECT \(summaries.idColumn), activity_key, reason, count, sample, failed_at, devices FROM \(summaries.table)
            WHERE \(summaries.idColumn) IN (\(SQLDialect.placeholders(from: 1, count: ids.count)))
            ORDER BY \(summaries.idColumn), reason
            """,
            ids.map(SQLValue.int)
        ) {
            let summary = FanOutFailureSummary(
                fanOutID: try row.int(0), activityKey: try row.text(1), reason: try row.text(2),
                count: Int(try row.int(3)), sample: try row.text(4).split(separator: " ").map(String.init),
                failedAt: try row.int(5), devices: try row.text(6).split(separator: "\n").map(String.init)
            )
            found[summary.fanOutID, default: []].append(summary)
        }
        return found
    }
}
