/// Reads back parts of an `aps` payload, for display: plans, live views, logs.
public enum APSPayload {
    /// The `aps` object of a payload, or nil when it is not `{"aps":{…}}`.
    public static func aps(in payload: [UInt8]) -> StateObject? {
        guard case .object(let top)? = try? JSONParser.parse(payload), case .object(let aps)? = top["aps"] else {
            return nil
        }
        return aps
    }

    /// The alert's title (or body) text, or `loc-key KEY` for a localized one.
    public static func alertText(in aps: StateObject) -> String? {
        guard case .object(let alert)? = aps["alert"] else { return nil }
        for key in ["title", "body"] {
            switch alert[key] {
            case .string(let text)?: return text
            case .object(let localized)?:
                if case .string(let key)? = localized["loc-key"] { return "loc-key \(key)" }
            default: continue
            }
        }
        return nil
    }
}
