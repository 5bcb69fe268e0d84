import Liveline

/// A response to one stream: status, headers and an optional body.
struct StreamResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// APNs's error response: `{"reason": …}`, plus `"timestamp"` (milliseconds) on a 410.
    static func error(_ error: APNsError, headers: [(String, String)], now: Millis) -> StreamResponse {
        var body: [UInt8] = Array(#"{"reason":"#.utf8)
        JSONValue.writeString(error.reason, into: &body)
        if error.status == 410 {
            body.append(contentsOf: #","timestamp":"#.utf8)
            body.append(contentsOf: String(now).utf8)
        }
        body.append(UInt8(ascii: "}"))
        return StreamResponse(
            status: error.status, headers: headers + [("content-type", "application/json")], body: body)
    }

    /// A JSON body with status `status`.
    static func json(_ status: Int, _ value: JSONValue, headers: [(String, String)]) -> StreamResponse {
        var body: [UInt8] = []
        value.write(into: &body)
        return StreamResponse(status: status, headers: headers + [("content-type", "application/json")], body: body)
    }
}

/// What a connection does after answering a request.
enum ConnectionDirective {
    case none
    /// Send GOAWAY with `{"reason": …}` and close once in-flight streams are answered.
    case goAway(reason: String)
}
