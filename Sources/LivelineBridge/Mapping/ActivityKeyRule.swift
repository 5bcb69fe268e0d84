/// What an activity key may be, wherever it comes from: the registry API's path, a webhook's
/// or a stream event's `activity-key`. One rule, so an event is never stored for a key the
/// registry could not name (it would wait for a registration that can never come).
public enum ActivityKeyRule {
    /// The longest key, in UTF-8 bytes.
    public static let maxBytes = 256

    /// The rule in words, for answers.
    public static let summary = "an activity key is 1 to \(maxBytes) bytes of UTF-8 without control characters"

    /// Why `key` cannot be an activity key; nil when it can.
    public static func problem(with key: String) -> String? {
        let bytes = key.utf8.count
        if bytes == 0 { return "the activity key is empty; \(summary)" }
        if bytes > maxBytes { return "the activity key is \(bytes) bytes long; \(summary)" }
        if let control = key.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = String(control.value, radix: 16, uppercase: true)
            return
                "the activity key holds the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code); \(summary)"
        }
        return nil
    }
}
