/// A phone platform a story plays on.
///
/// The engine decides once for every platform (when a push goes, what state it carries, why);
/// each platform turns that decision into its own message by its own rules: APNs's `aps`
/// payload on iOS (written by the engine itself, the hot path), an FCM data message for an
/// Android Live Update (``AndroidPlatform``).
public enum Platform: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// iOS: APNs pushes to a Live Activity.
    case ios
    /// Android: FCM data messages the app turns into a Live Update.
    case android

    public var description: String { rawValue }
}
