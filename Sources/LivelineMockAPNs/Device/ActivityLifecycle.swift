/// Where a Live Activity is in its life, as the device would show it.
///
/// `pending`: known to the mock, nothing rendered yet (a dropped start, or a `--subscribe`d
/// token that has not been pushed to). `active`: showing current content. `stale`: showing, but
/// past its `stale-date`. `ended`: ended (by an `end` event, or by the system 8 h after it
/// started) and still on the Lock Screen. `dismissed`: gone.
public enum ActivityLifecycle: String, Sendable, Hashable, Codable, CaseIterable {
    case pending, active, stale, ended, dismissed
}
