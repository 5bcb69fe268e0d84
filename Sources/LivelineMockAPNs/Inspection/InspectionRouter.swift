import Foundation

/// Maps inspection API requests to the mock's state; independent of HTTP plumbing.
///
/// | request | answer |
/// |---|---|
/// | `GET /activities` | a page of activities (``ActivitySnapshot``): `{"activities": […], "total": N, "next": CURSOR}`; `?limit=` (default 100, at most 10,000), `?after=CURSOR` for the next page (``ActivityPage``) |
/// | `GET /activities/{token}` | one activity, by update token or id |
/// | `GET /activities/{token}/pushes` | the pushes to that token (``AnsweredPush``), oldest first |
/// | `GET /channels` | broadcast channels |
/// | `GET /stats` | ``MockAPNsStats`` (sums every activity: its cost grows with them) |
/// | `GET /counters` | ``MockAPNsCounters``: the running counters alone, the same cost at any size |
/// | `GET /faults`, `POST /faults` | read or replace the ``FaultPlan`` (body: YAML or JSON) |
/// | `POST /reset` | forget activities, channels, histories and counters |
struct InspectionRouter: Sendable {
    let state: MockAPNsState

    struct Response {
        var status: Int
        var body: Data
    }

    func respond(method: String, path: String, body: Data) -> Response {
        let trimmed = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let parts = trimmed.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        switch (method, parts.count, parts.first) {
        case ("GET", 1, "activities"):
            switch ActivityPage.Request.parse(path) {
            case .success(let request):
                return encode(state.activityPage(from: request.start, limit: request.limit))
            case .failure(let problem):
                return failure(400, problem.message)
            }
        case ("GET", 2, "activities"):
            guard let activity = state.activity(token: parts[1]) else { return notFound("no activity for \(parts[1])") }
            return encode(activity)
        case ("GET", 3, "activities") where parts[2] == "pushes":
            return encode(state.pushes(token: parts[1]))
        case ("GET", 1, "channels"):
            return encode(state.channels())
        case ("GET", 1, "stats"):
            return encode(state.stats())
        case ("GET", 1, "counters"):
            return encode(state.counters())
        case ("GET", 1, "faults"):
            return encode(state.faults())
        case ("POST", 1, "faults"):
            do {
                let plan = try FaultPlan(yaml: String(decoding: body, as: UTF8.self))
                state.setFaults(plan)
                return encode(plan)
            } catch {
                return failure(400, error.description)
            }
        case ("POST", 1, "reset"):
            state.reset()
            return encode(["reset": true])
        case (_, _, "activities"), (_, _, "channels"), (_, _, "stats"), (_, _, "counters"), (_, _, "faults"),
            (_, _, "reset"):
            return failure(405, "\(method) is not allowed on \(trimmed)")
        default:
            return notFound(
                "try GET /activities, /activities/{token}/pushes, /channels, /stats, /counters, /faults; POST /faults, /reset"
            )
        }
    }

    private func encode(_ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return Response(status: 200, body: try encoder.encode(value))
        } catch {
            return failure(500, "could not encode: \(error)")
        }
    }

    private func notFound(_ message: String) -> Response { failure(404, message) }

    private func failure(_ status: Int, _ message: String) -> Response {
        var bytes: [UInt8] = Array(#"{"error":"#.utf8)
        JSONValue.writeString(message, into: &bytes)
        bytes.append(contentsOf: "}\n".utf8)
        return Response(status: status, body: Data(bytes))
    }
}
