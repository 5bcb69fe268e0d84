/// The `apns-topic` of a Live Activity push: the app's bundle id followed by
/// `.push-type.liveactivity`. A broadcast has no topic and names the bundle id in its path. The
/// one place that knows the suffix: the engine's scenarios, the client, the bridge, the mock's
/// validation and the CLI all go through it.
public enum LiveActivityTopic {
    /// What follows the bundle id in a Live Activity push's `apns-topic`.
    public static let suffix: StaticString = ".push-type.liveactivity"

    private static let suffixText = "\(suffix)"

    /// `<bundle id>.push-type.liveactivity`; a `bundleID` that already ends that way is taken as
    /// the topic, so a setting may name either.
    public static func topic(forBundleID bundleID: String) -> String {
        bundleID.hasSuffix(suffixText) ? bundleID : bundleID + suffixText
    }

    /// The bundle id of `topic`: the topic without the suffix, or `topic` itself when it has none
    /// (a setting that names the bundle id).
    public static func bundleID(ofTopic topic: String) -> String {
        topic.hasSuffix(suffixText) ? String(topic.dropLast(suffix.utf8CodeUnitCount)) : topic
    }
}
