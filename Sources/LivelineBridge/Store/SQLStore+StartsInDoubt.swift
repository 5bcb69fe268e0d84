import Foundation
import Liveline

/// A start is delivered once. A push-to-start token given two starts shows two Live Activities
/// for one story, so a start whose sending instance stopped between sending it and recording
/// APNs' answer (a `kill -9`, a drain's cutoff) is never sent again blindly: its followers are
/// marked *in doubt* (a `follower_exceptions` row in state `in-doubt`, never due), summed in the
/// fan-out's failures as `in-doubt`, counted in the key's followers and the metrics, and sent
/// nothing more until one of two things settles them:
///
/// - the app reports the follower's update token (the start arrived: the follower now updates,
///   and catches up with the newest update if the story moved on);
/// - the follower is given a new push-to-start token (the app says it has no activity: it is
///   started again, once).
///
/// Updates are not in doubt: a repeated update carries the same `aps.timestamp`, which the
/// device drops as not newer, so a range of updates claimed by a stopped instance is sent again.
/// Nor is an Android phone's start: its app posts the notification under the activity's tag, so
/// a start sent twice shows one notification, and it is sent again with the range.
extension SQLStore {
    /// An in-doubt exception's `due_at`: never due, and found by the due index.
    static let inDoubtDue = Int64.max

    static let inDoubtReason = "in-doubt"

    /// What the follower's record says of an in-doubt start.
    static let inDoubtError =
        "the start was sent by an instance that stopped before APNs' answer was recorded; it is not sent again: "
        + "the app's update token settles it, a new push-to-start token starts the activity again"

    /// The start fan-out's range `(from, to]` that `sender` claimed and never recorded: its
    /// start-only iPhones are marked in doubt, and the fan-out counts them as failed
    /// (`in-doubt`). The claim is removed, finishing the fan-out if this was its last range,
    /// unless `keepsClaim`: the range's Android phones are then sent the start again (a second
    /// post of their notification replaces the first), and their answers settle the range.
    static func markStartsInDoubt(
        fanOut id: Int64, from: Int64, to: Int64, push: OutboxPush, sender: String, now: Millis, history: Bool,
        keepsClaim: Bool = false, _ tx: any SQLTransaction
    ) async throws {
        let marked = try await tx.run(
            """
            INSERT INTO follower_exceptions (follower_id, activity_key, state, attempts, due_at, last_error)
            SELECT fo.id, fo.activity_key, 'in-doubt', 0, $4, $5 FROM followers fo
            WHERE fo.activity_key = $1 AND fo.id > $2 AND fo.id <= $3
              AND fo.start_token IS NOT NULL AND fo.update_token IS NULL
              AND NOT EXISTS (SELECT 1 FROM follower_exceptions e WHERE e.follower_id = fo.id)
            ORDER BY fo.id
            RETURNING follower_id
            """,
            [.text(push.activityKey), .int(from), .int(to), .int(inDoubtDue), .text(inDoubtError)]
        ).map { try $0.int(0) }
        if !keepsClaim {
            try await tx.run(
                "DELETE FROM fanout_claims WHERE fanout_id = $1 AND from_id = $2", [.int(id), .int(from)])
        }
        if !marked.isEmpty {
            try await tx.run(
                "UPDATE fanouts SET failed = failed + $2 WHERE id = $1", [.int(id), .int(Int64(marked.count))])
            try await summarizeInDoubt(
                fanOut: id, activityKey: push.activityKey, followers: marked, now: now, tx)
        }
        let finish = keepsClaim ? nil : try await finishIfDone(fanOut: id, now: now, tx)
        guard history, !(keepsClaim && marked.isEmpty) else { return }
        try await recordRange(
            fanOut: id, sent: 0, failed: marked.count, instance: sender, finished: finish?.finished ?? false, now: now,
            tx)
    }

    /// Start catch-ups claimed before and never answered: in doubt, as a range would be.
    static func markCatchUpsInDoubt(_ ids: [Int64], _ tx: any SQLTransaction) async throws {
        for chunk in chunks(ids.count) {
            try await tx.run(
                """
                UPDATE follower_exceptions SET state = 'in-doubt', due_at = $1, claimed_by = '', last_error = $2
                WHERE follower_id IN (\(SQLDialect.placeholders(from: 3, count: chunk.count)))
                """,
                [.int(inDoubtDue), .text(inDoubtError)] + chunk.map { .int(ids[$0]) }
            )
        }
    }

    /// Followers that now have an update token: an in-doubt start of theirs arrived.
    static func settleStarts(_ ids: [Int64], _ tx: any SQLTransaction) async throws {
        for chunk in chunks(ids.count) {
            try await tx.run(
                """
                DELETE FROM follower_exceptions WHERE state = 'in-doubt'
                  AND follower_id IN (\(SQLDialect.placeholders(from: 1, count: chunk.count)))
                """,
                chunk.map { .int(ids[$0]) }
            )
        }
    }

    /// Followers in doubt, of one key or (nil) of all.
    static func inDoubtCount(activityKey: String?, _ tx: any SQLTransaction) async throws -> Int {
        let rows = try await tx.run(
            """
            SELECT COUNT(*) FROM follower_exceptions WHERE due_at = $1 AND state = 'in-doubt'
            \(activityKey == nil ? "" : "AND activity_key = $2")
            """,
            [.int(inDoubtDue)] + (activityKey.map { [.text($0)] } ?? [])
        )
        return Int(try rows.first?.int(0) ?? 0)
    }

    /// Adds in-doubt followers to the fan-out's failure summary, with a few tokens and devices.
    private static func summarizeInDoubt(
        fanOut id: Int64, activityKey: String, followers: [Int64], now: Millis, _ tx: any SQLTransaction
    ) async throws {
        let sampled = Array(followers.prefix(summarySample))
        var tokens: [String] = []
        var devices: [String] = []
        for row in try await tx.run(
            """
            SELECT device, start_token FROM followers WHERE activity_key = $1
              AND id IN (\(SQLDialect.placeholders(from: 2, count: sampled.count))) ORDER BY id
            """,
            [.text(activityKey)] + sampled.map(SQLValue.int)
        ) {
            devices.append(try row.text(0))
            if let token = try row.optionalBytes(1) { tokens.append(sampleToken(HexToken.hex(token))) }
        }
        try await addFailures(
            .fanOut, id: id, activityKey: activityKey, reason: inDoubtReason, count: followers.count, tokens: tokens,
            devices: devices, now: now, tx)
    }
}
