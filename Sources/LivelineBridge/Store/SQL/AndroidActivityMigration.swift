/// The migration that lets a key's own activity be an Android phone: `activities.fcm_token`
/// (its FCM registration token, or `fid:` and its Firebase installation ID; an activity has
/// either APNs tokens and a channel, or this), `outbox.fcm_message` (the FCM message of each
/// push whose story has an `android:` block, without its target, as `fanouts.fcm_message`), and
/// `push_history.platform` (`android` for an attempt sent through FCM; NULL for APNs').
///
/// Every activity stored before it has no FCM token, so it goes on as before.
enum AndroidActivityMigration {
    static func step(version: Int) -> Migrations.Step {
        Migrations.Step(
            version: version,
            statements: [
                "ALTER TABLE activities ADD COLUMN fcm_token TEXT",
                "ALTER TABLE outbox ADD COLUMN fcm_message {bytes}",
                "ALTER TABLE push_history ADD COLUMN platform TEXT",
            ]
        )
    }
}
