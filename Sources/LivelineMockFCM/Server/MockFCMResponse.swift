/// One answer of the mock FCM: a status, header fields and a JSON body.
struct MockFCMResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    static func json(_ status: Int, _ body: [UInt8], headers: [(String, String)] = []) -> MockFCMResponse {
        MockFCMResponse(
            status: status, headers: [("content-type", "application/json; charset=UTF-8")] + headers, body: body)
    }

    /// FCM's error body, with `Retry-After` when it carries one.
    static func error(_ answer: FCMErrorAnswer) -> MockFCMResponse {
        json(answer.httpStatus, answer.body, headers: answer.retryAfter.map { [("retry-after", String($0))] } ?? [])
    }
}
