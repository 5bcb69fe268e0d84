import Foundation
import Liveline

/// An activity's own start is delivered once, as its followers' are (`markStartsInDoubt`). A
/// `start` in the outbox whose claim ran out while still claimed was taken by an instance that
/// stopped before recording APNs' answer (a `kill -9`, a cutoff): it may have reached the phone, and a second
/// start would show a second Live Activity for one story. So it is not sent again but marked
/// *in doubt*: never due (it holds back the activity's later pushes, which need the update
/// token the started activity reports anyway), `last_error` saying why, an `in-doubt` entry in
/// the delivery history, shown in `GET /v1/activities/{key}` and counted in
/// `liveline_outbox_starts_in_doubt`. The app settles it through the registration:
///
/// - an update token: the start arrived; the start leaves the outbox (a `delivered` entry in the
///   history) and the activity's updates go to the token;
/// - a new push-to-start token: the app has no activity; the start is sent again, once.
///
/// An Android phone's start (a key registered with an `fcm-token`) is never in doubt: the Live
/// Update it shows is named for the key (the notification's tag), so a second start replaces
/// the first instead of showing another; it is given back and sent again like any other push.
extension SQLStore {
    /// What an in-doubt start's `last_error` says.
    static let outboxStartInDoubtError =
        "the start was sent by an instance that stopped before APNs' answer was recorded; it is not sent again: "
        + "the app reporting the activity's update token settles it, a new push-to-start token starts it again"

    /// What the history says of an in-doubt start the app's update token settled.
    static let outboxStartSettledError =
        "settled: the app reported the started activity's update token, so the start arrived"

    /// Which claimed starts are in doubt.
    enum StartsInDoubt {
        /// Those whose claim ran out by `now` (before a claim pass takes due pushes).
        case claimExpired(now: Millis)
        /// Those `instance` still holds when it gives its claims back (a drain whose cutoff
        /// gave up on their answers).
        case heldBy(instance: String)
    }

    /// Marks the starts `which` names in doubt, with an entry in the history for each.
    static func markOutboxStartsInDoubt(_ which: StartsInDoubt, history: Bool, _ tx: any SQLTransaction) async throws {
        var expired: String
        let first: SQLValue
        switch which {
        case .claimExpired(let now):
            expired = "kind = 'start' AND claimed_by <> '' AND claim_expires_at <= $1 AND due_at <= $1"
            first = .int(now)
        case .heldBy(let instance):
            expired = "kind = 'start' AND claimed_by = $1"
            first = .text(instance)
        }
        expired +=
            " AND NOT EXISTS (SELECT 1 FROM activities a WHERE a.key = outbox.activity_key AND a.fcm_token IS NOT NULL)"

        if history {
            try await tx.run(
                """
                INSERT INTO push_history (activity_key, kind, priority, reason, payload, stored_at, sent_at, instance,
                                          outcome, error, attempt, outbox_id)
                SELECT activity_key, kind, priority, reason, payload, stored_at, claimed_at, claimed_by, $2, $3,
                       attempts + 1, id
                FROM outbox WHERE \(expired) ORDER BY id
                """,
                [first, .text(PushRecord.Outcome.inDoubt.rawValue), .text(outboxStartInDoubtError)])
        }
        try await tx.run(
            "UPDATE outbox SET due_at = $2, last_error = $3, claimed_by = '', claim_expires_at = 0 WHERE \(expired)",
            [first, .int(inDoubtDue), .text(outboxStartInDoubtError)])
    }

    /// Settles an activity's in-doubt start from what its app just registered: an update token
    /// removes it (it arrived), a push-to-start token other than `previousStartToken` makes it
    /// due now (the app has no activity: it is started again, once).
    static func settleOutboxStartInDoubt(
        _ key: String, targets: ActivityTargets, previousStartToken: String?, now: Millis, history: Bool,
        _ tx: any SQLTransaction
    ) async throws {
        let inDoubt = "activity_key = $1 AND kind = 'start' AND due_at = $2"
        if targets.updateToken != nil {
            if history {
                try await tx.run(
                    """
                    INSERT INTO push_history (activity_key, kind, priority, reason, payload, stored_at, answered_at,
                                              outcome, error, attempt, outbox_id)
                    SELECT activity_key, kind, priority, reason, payload, stored_at, $3, $4, $5, attempts, id
                    FROM outbox WHERE \(inDoubt) ORDER BY id
                    """,
                    [
                        .text(key), .int(inDoubtDue), .int(now), .text(PushRecord.Outcome.delivered.rawValue),
                        .text(outboxStartSettledError),
                    ])
            }
            try await tx.run("DELETE FROM outbox WHERE \(inDoubt)", [.text(key), .int(inDoubtDue)])
        } else if let token = targets.pushToStartToken, token != previousStartToken {
            try await tx.run(
                "UPDATE outbox SET due_at = $3, last_error = NULL WHERE \(inDoubt)",
                [.text(key), .int(inDoubtDue), .int(now)])
        }
    }

    public func startInDoubt(for activityKey: String) async throws -> Bool {
        try await transaction { tx in
            !(try await tx.run(
                "SELECT 1 FROM outbox WHERE activity_key = $1 AND kind = 'start' AND due_at = $2",
                [.text(activityKey), .int(Self.inDoubtDue)]
            ).isEmpty)
        }
    }
}
