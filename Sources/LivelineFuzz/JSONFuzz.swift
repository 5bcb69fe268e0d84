import Liveline
import LivelineMockAPNs

extension FuzzTarget {
    /// Both JSON readers: Liveline's (into `StateValue`, for webhook bodies and payloads) and
    /// the mock's (zero-copy, for pushes), which must agree on what is JSON.
    static let json = FuzzTarget(name: "json", summary: "both JSON parsers, which must agree on what is valid") { bytes in
        let liveline = try? JSONParser.parse(Array(bytes))
        let mock = try? JSONValue(parsing: bytes)
        if (liveline == nil) != (mock == nil) {
            preconditionFailure("the JSON parsers disagree on \(bytes.count) bytes: Liveline \(liveline == nil ? "refuses" : "accepts"), the mock \(mock == nil ? "refuses" : "accepts")")
        }
        return liveline != nil
    }
}
