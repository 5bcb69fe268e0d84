/// The migration that lets a follower be an Android phone: `followers.fcm_token` (its FCM
/// registration token, or `fid:` and its Firebase installation ID; a follower has either APNs
/// tokens or this), `fanouts.fcm_message` (the FCM message each push of a story with an
/// `android:` block sends, without its target; NULL for a story without one, whose Android
/// followers are sent nothing), `follower_counts.android` (a key's Android followers), and
/// the followers' count triggers made again so an Android follower counts as `updating`
/// (``FollowerCountTriggers/followerCounts(_:integer:android:)``). The delivery history's
/// fan-out entries gain their Android share (`android_sent`, `android_failed`).
///
/// Every follower stored before it has no FCM token, so the counts already kept stay exact.
enum AndroidFollowerMigration {
    static func step(version: Int) -> Migrations.Step {
        Migrations.Step(
            version: version,
            statements: [
                "ALTER TABLE followers ADD COLUMN fcm_token TEXT",
                "ALTER TABLE fanouts ADD COLUMN fcm_message {bytes}",
                "ALTER TABLE follower_counts ADD COLUMN android BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE push_history ADD COLUMN android_sent BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE push_history ADD COLUMN android_failed BIGINT NOT NULL DEFAULT 0",
            ],
            sqlite: ["count_followers_insert", "count_followers_update", "count_followers_delete"].map {
                "DROP TRIGGER \($0)"
            }
                + FollowerCountTriggers.sqliteTriggers(
                    table: "followers", name: "count_followers",
                    columns: {
                        FollowerCountTriggers.followerCounts($0, integer: FollowerCountTriggers.bit, android: true)
                    },
                    changed: "update_token, on_channel, fcm_token"),
            postgres: [
                FollowerCountTriggers.postgresFunction(
                    name: "count_followers",
                    columns: {
                        FollowerCountTriggers.followerCounts($0, integer: FollowerCountTriggers.bit, android: true)
                    },
                    replacing: true)
            ]
        )
    }
}
