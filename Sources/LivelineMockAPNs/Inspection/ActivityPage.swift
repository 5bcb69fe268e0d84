import Foundation

/// One page of `GET /activities`: a mock in a load test holds 100,000 activities, which one
/// answer should not carry at once.
///
/// ```json
/// {"activities": [ … ], "total": 20000, "next": "100"}
/// ```
///
/// Activities come in the order the mock first saw them. `next` is the cursor of the page after
/// this one (`GET /activities?after=100`), null on the last page; `limit` sets the page's size
/// (default 100, at most 10,000). A cursor is a position that holds while the mock runs (it
/// only adds activities); after `POST /reset` the positions start again.
struct ActivityPage: Encodable {
    var activities: [ActivitySnapshot]
    var total: Int
    var next: String?

    static let standardLimit = 100
    static let maximumLimit = 10_000

    enum CodingKeys: String, CodingKey {
        case activities, total, next
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(activities, forKey: .activities)
        try container.encode(total, forKey: .total)
        // null on the last page, rather than a missing key, so clients can loop on it.
        try container.encode(next, forKey: .next)
    }

    /// The page asked for by a request target's query.
    struct Request: Equatable {
        var start = 0
        var limit = ActivityPage.standardLimit

        struct Problem: Error, Equatable {
            var message: String
        }

        /// Reads `limit` and `after` from `target` (`/activities?limit=50&after=100`).
        static func parse(_ target: String) -> Result<Request, Problem> {
            var request = Request()
            let query = target.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            for item in query.split(separator: "&") where !item.isEmpty {
                let pair = item.split(separator: "=", maxSplits: 1)
                let name = String(pair[0])
                let value = pair.count > 1 ? (String(pair[1]).removingPercentEncoding ?? String(pair[1])) : ""
                switch name {
                case "limit":
                    guard let limit = Int(value), (1...ActivityPage.maximumLimit).contains(limit) else {
                        return .failure(
                            Problem(
                                message:
                                    "limit must be a whole number from 1 to \(ActivityPage.maximumLimit), not '\(value.prefix(20))'"
                            ))
                    }
                    request.limit = limit
                case "after":
                    guard let start = Int(value), start >= 0 else {
                        return .failure(
                            Problem(message: "after must be a cursor from a page's next, not '\(value.prefix(20))'"))
                    }
                    request.start = start
                default:
                    return .failure(
                        Problem(
                            message:
                                "unknown query parameter '\(name.prefix(20))'; GET /activities takes limit and after"))
                }
            }
            return .success(request)
        }
    }
}
