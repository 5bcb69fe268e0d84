import LivelineCore

/// The mock FCM's inspection API, on its port beside FCM's paths (HTTP/1.1 or HTTP/2):
///
/// | request | answer |
/// |---|---|
/// | `GET /mock/stats` | counts: accepted, refused by code, tokens granted and refused, what the phones did |
/// | `GET /mock/messages` | the accepted messages, oldest first, with what each did on its phone |
/// | `GET /mock/phones/{token\|fid}/{id}` | what the phone shows: each activity's notification, promoted or not and why, its chip |
/// | `POST /mock/phones/{token\|fid}/{id}/demote?activity=A` | the user demotes a Live Update |
/// | `POST /mock/phones/{token\|fid}/{id}/offline` and `…/online` | the phone leaves or comes back |
/// | `DELETE /mock/phones/{token\|fid}/{id}` | the app is uninstalled: later sends answer `UNREGISTERED` |
/// | `POST /mock/faults` `{"code":"UNAVAILABLE","count":3,"retry_after":5}` | the next sends answer that error |
///
/// Codes for faults: `UNAVAILABLE`, `QUOTA_EXCEEDED`, `INTERNAL`, `UNREGISTERED`,
/// `SENDER_ID_MISMATCH`, `THIRD_PARTY_AUTH_ERROR`, `UNAUTHENTICATED`.
enum MockFCMInspection {
    static let prefix = "/mock/"

    static func answer(method: String, path: String, body: [UInt8], state: MockFCMState) -> MockFCMResponse {
        let (route, query) = split(path)
        let parts = route.dropFirst(prefix.count).split(separator: "/").map(String.init)
        switch (method, parts.first) {
        case ("GET", "stats"?) where parts.count == 1:
            return .json(200, write(stats(state.stats())))
        case ("GET", "messages"?) where parts.count == 1:
            return .json(200, write(.array(state.messages().map(message))))
        case ("POST", "faults"?) where parts.count == 1:
            return fault(body, state: state)
        case (_, "phones"?) where parts.count >= 3:
            let recipient: FCMRecipient = parts[1] == "fid" ? .fid(parts[2]) : .token(parts[2])
            guard parts[1] == "token" || parts[1] == "fid" else { break }
            switch (method, parts.count == 4 ? parts[3] : nil) {
            case ("GET", nil):
                guard let phone = state.phone(recipient) else {
                    return problem(404, "nothing was sent to \(parts[1]) \(parts[2])")
                }
                return .json(200, write(self.phone(phone)))
            case ("DELETE", nil):
                state.register(recipient, project: "", unregistered: true)
                return .json(200, write(.object(StateObject([("uninstalled", .bool(true))]))))
            case ("POST", "demote"?):
                guard let activity = query["activity"] else { return problem(400, "name the activity: ?activity=A") }
                guard let outcome = state.demote(recipient, activity: activity) else {
                    return problem(404, "the phone shows no Live Update of \(activity)")
                }
                return .json(200, write(.array([self.outcome(outcome)])))
            case ("POST", "offline"?), ("POST", "online"?):
                let outcomes = state.setOnline(recipient, parts[3] == "online")
                return .json(200, write(.array(outcomes.map(self.outcome))))
            default: break
            }
        default: break
        }
        return problem(404, "no inspection route \(method) \(route); see docs/fcm.md, \"The mock FCM\"")
    }

    private static func fault(_ body: [UInt8], state: MockFCMState) -> MockFCMResponse {
        guard case .object(let object)? = try? JSONParser.parse(body), case .string(let code)? = object["code"] else {
            return problem(400, #"expected {"code": "UNAVAILABLE", "count": 1, "retry_after": 5}"#)
        }
        var count = 1
        if case .int(let value)? = object["count"] { count = value }
        var retryAfter = 1
        if case .int(let value)? = object["retry_after"] { retryAfter = value }
        let answer: FCMErrorAnswer
        switch code {
        case "UNAVAILABLE": answer = .unavailable(retryAfter: retryAfter)
        case "QUOTA_EXCEEDED": answer = .quotaExceeded(retryAfter: retryAfter)
        case "INTERNAL": answer = .internal
        case "UNREGISTERED": answer = .unregistered
        case "SENDER_ID_MISMATCH": answer = .senderIDMismatch
        case "THIRD_PARTY_AUTH_ERROR": answer = .thirdPartyAuthError
        case "UNAUTHENTICATED": answer = .unauthenticated
        default:
            return problem(
                400,
                "unknown code \(code): UNAVAILABLE, QUOTA_EXCEEDED, INTERNAL, UNREGISTERED, SENDER_ID_MISMATCH, THIRD_PARTY_AUTH_ERROR or UNAUTHENTICATED"
            )
        }
        state.inject(.init(answer, count: max(1, count)))
        return .json(200, write(.object(StateObject([("code", .string(code)), ("count", .int(max(1, count)))]))))
    }

    // MARK: JSON

    private static func split(_ path: String) -> (String, [String: String]) {
        let pieces = path.split(separator: "?", maxSplits: 1)
        var query: [String: String] = [:]
        if pieces.count == 2 {
            for pair in pieces[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                query[String(kv[0])] = kv.count == 2 ? String(kv[1]).removingPercentEncodingIfPossible : ""
            }
        }
        return (pieces.first.map(String.init) ?? path, query)
    }

    private static func problem(_ status: Int, _ message: String) -> MockFCMResponse {
        .json(status, write(.object(StateObject([("error", .string(message))]))))
    }

    /// The JSON of `value` and a newline, so `curl` leaves the shell's prompt on a line of its own.
    private static func write(_ value: StateValue) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.value(value)
        writer.raw(UInt8(ascii: "\n"))
        return writer.bytes
    }

    private static func optional(_ value: String?) -> StateValue { value.map { .string($0) } ?? .null }
    private static func optional(_ value: Int?) -> StateValue { value.map { .int($0) } ?? .null }
    private static func optional(_ value: Millis?) -> StateValue { value.map { .int(Int($0)) } ?? .null }

    static func stats(_ stats: MockFCMStats) -> StateValue {
        .object(
            StateObject([
                ("accepted", .int(stats.accepted)),
                (
                    "refused",
                    .object(StateObject(stats.refused.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }))
                ),
                ("tokens_granted", .int(stats.tokensGranted)), ("tokens_refused", .int(stats.tokensRefused)),
                ("faults_answered", .int(stats.faultsAnswered)),
                (
                    "phones",
                    .object(
                        StateObject(
                            stats.phones.sorted { $0.key.rawValue < $1.key.rawValue }.map {
                                ($0.key.rawValue, .int($0.value))
                            }))
                ),
            ]))
    }

    static func message(_ record: MockFCMMessage) -> StateValue {
        let target: (String, String) =
            switch record.message.recipient {
            case .token(let value): ("token", value)
            case .fid(let value): ("fid", value)
            case .topic(let value): ("topic", value)
            case .condition(let value): ("condition", value)
            }
        return .object(
            StateObject([
                ("name", .string(record.name)), (target.0, .string(target.1)),
                ("priority", .string(record.message.priority.rawValue)),
                ("collapse_key", optional(record.message.collapseKey)), ("ttl_ms", .int(Int(record.message.ttl))),
                ("received_at", .int(Int(record.receivedAt))),
                ("data", .object(StateObject(record.message.data.entries.map { ($0.key, .string($0.value)) }))),
                ("outcomes", .array(record.outcomes.map(outcome))),
            ]))
    }

    static func outcome(_ outcome: PhoneOutcome) -> StateValue {
        .object(
            StateObject([
                ("kind", .string(outcome.kind.rawValue)), ("activity", optional(outcome.activity)),
                ("at", .int(Int(outcome.time))), ("detail", .string(outcome.detail)),
                ("alerted", .bool(outcome.alerted)),
            ]))
    }

    static func phone(_ phone: AndroidPhone) -> StateValue {
        .object(
            StateObject([
                ("online", .bool(phone.online)), ("held", .int(phone.heldCount)),
                (
                    "notifications",
                    .object(
                        StateObject(
                            phone.notifications.sorted { $0.key < $1.key }.map { ($0.key, notification($0.value)) }))
                ),
            ]))
    }

    static func notification(_ shown: PhoneNotification) -> StateValue {
        let content = shown.content
        return .object(
            StateObject([
                ("title", .string(content.title)), ("text", optional(content.text)), ("chip", optional(content.chip)),
                ("chip_shown", optional(shown.chipShown)), ("style", .string(content.style.rawValue)),
                ("progress", optional(content.progress)), ("progress_max", optional(content.progressMax)),
                ("channel", .string(content.channel)), ("small_icon", optional(content.smallIcon)),
                ("ongoing", .bool(shown.ongoing)), ("promoted", .bool(shown.promoted)),
                ("not_promoted_because", optional(shown.notPromotedBecause)), ("timestamp", .int(Int(shown.timestamp))),
                ("remove_at", optional(shown.removeAt)),
            ]))
    }
}

extension String {
    /// `%xx` escapes decoded, or the text as it is when they are not valid UTF-8.
    fileprivate var removingPercentEncodingIfPossible: String {
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? self
    }
}
