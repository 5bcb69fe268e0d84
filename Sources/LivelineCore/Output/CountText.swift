/// A count with its noun in the right number: `1 push`, `2 pushes`, `0 heartbeats`.
public enum CountText {
    /// `count` and `singular`, or `plural` (default: `singular` + "s") when it is not 1.
    /// `shown` replaces the number as written (a grouped `20,000`).
    public static func of(_ count: Int, _ singular: String, _ plural: String? = nil, shown: String? = nil) -> String {
        "\(shown ?? String(count)) \(count == 1 ? singular : plural ?? singular + "s")"
    }
}
