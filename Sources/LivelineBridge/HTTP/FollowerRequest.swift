import Foundation
import Liveline
import LivelineFCM

/// A follower as `PUT /v1/activities/{key}/followers/{device}` and the NDJSON import give it:
///
/// ```json
/// {"update-token": "80f7…", "push-to-start-token": "a1b2…", "channel": false, "environment": "sandbox"}
/// {"fcm-token": "dXk2…:APA91b…"}
/// ```
///
/// An Android phone gives its `fcm-token` instead: its FCM registration token, or `fid:` and
/// its Firebase installation ID; it is sent every message of the story's Live Update (start,
/// updates, end). A device is an iPhone or an Android phone: a follower with both kinds of token,
/// or an Android one on the channel, is refused with 422 `two-platforms`.
///
/// Tokens are hex as for activities (an even number of 16 to 400 digits). `channel: true`
/// says the device listens to the key's broadcast channel, so it is sent no per-token updates
/// (a push-to-start token is still started by token). `environment` is its tokens' APNs
/// environment, as for an activity (``ActivityRegistrationRequest``): without it, the
/// configuration's; one the bridge does not send to is refused with 422. A `PUT` changes only the fields it names
/// (`null` removes a token), so the app can report its update token later alone; an import line
/// (``lines(_:)``) also names `device` and replaces the follower whole. After the change the
/// follower needs a token: 422 `no-token` otherwise. Unknown fields are refused.
struct FollowerRequest: Sendable, Hashable {
    var device: String?
    var updateToken: ActivityRegistrationRequest.Edit<String> = .keep
    var startToken: ActivityRegistrationRequest.Edit<String> = .keep
    var onChannel: Bool?
    var environment: ActivityRegistrationRequest.Edit<APNsEnvironment> = .keep
    var fcmToken: ActivityRegistrationRequest.Edit<String> = .keep

    static let fields = ["update-token", "push-to-start-token", "channel", "environment", "fcm-token"]

    /// Reads a `PUT` body (an empty body is an empty object).
    init(parsing body: [UInt8]) throws(BridgeHTTPError) {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            try self.init(.object(StateObject()), allowed: Self.fields)
            return
        }
        let document: StateValue
        do {
            document = try JSONParser.parse(body)
        } catch {
            throw BridgeHTTPError(.badRequest, code: "bad-json", reason: "the body is not JSON: \(error)")
        }
        try self.init(document, allowed: Self.fields)
    }

    private init(_ document: StateValue, allowed: [String]) throws(BridgeHTTPError) {
        guard case .object(let object) = document else {
            throw ActivityRegistrationRequest.bad("a follower must be a JSON object such as {\"update-token\": \"…\"}")
        }
        let unknown = object.keys.filter { !allowed.contains($0) }
        if !unknown.isEmpty {
            throw BridgeHTTPError(
                .badRequest, code: "unknown-field",
                reason:
                    "unknown field(s) \(unknown.map { "'\($0.prefix(40))'" }.joined(separator: ", ")); known: \(allowed.joined(separator: ", "))"
            )
        }
        updateToken = try ActivityRegistrationRequest.token(object["update-token"], field: "update-token")
        startToken = try ActivityRegistrationRequest.token(object["push-to-start-token"], field: "push-to-start-token")
        environment = try ActivityRegistrationRequest.environment(object["environment"])
        fcmToken = try Self.fcmToken(object["fcm-token"])
        switch object["channel"] {
        case nil, .null?: onChannel = nil
        case .bool(let flag)?: onChannel = flag
        default:
            throw ActivityRegistrationRequest.bad(
                "channel must be true (the device listens to the key's channel) or false")
        }
        if allowed.contains("device") {
            guard case .string(let device)? = object["device"] else {
                throw ActivityRegistrationRequest.bad("each line needs \"device\", the device's id, as a string")
            }
            try Self.checkDevice(device)
            self.device = device
        }
    }

    /// The follower after this change to `existing` (nil: a new one).
    func follower(
        device: String, existing: Follower?, environments: APNsEnvironments = .both
    ) throws(BridgeHTTPError) -> Follower {
        let follower = Follower(
            device: device, updateToken: updateToken.applied(to: existing?.updateToken),
            startToken: startToken.applied(to: existing?.startToken),
            onChannel: onChannel ?? existing?.onChannel ?? false,
            environment: try ActivityRegistrationRequest.served(
                environment.applied(to: existing?.environment), by: environments),
            fcmToken: fcmToken.applied(to: existing?.fcmToken)
        )
        guard follower.updateToken != nil || follower.startToken != nil || follower.fcmToken != nil else {
            throw BridgeHTTPError(
                .unprocessableContent, code: "no-token",
                reason: "a follower needs an update-token or a push-to-start-token (iPhone), or an fcm-token (Android)")
        }
        if follower.fcmToken != nil, follower.updateToken != nil || follower.startToken != nil || follower.onChannel {
            throw BridgeHTTPError(
                .unprocessableContent, code: "two-platforms",
                reason:
                    "a follower is one phone: an fcm-token (Android) goes without update-token, push-to-start-token and channel (iPhone); register each phone under its own device id, or set the other's fields to null"
            )
        }
        return follower
    }

    /// `"fcm-token"`: a registration token, or `fid:` and a Firebase installation ID; `null` removes it.
    static func fcmToken(_ value: StateValue?) throws(BridgeHTTPError) -> ActivityRegistrationRequest.Edit<String> {
        switch value {
        case nil: return .keep
        case .null?: return .remove
        case .string(let text)?:
            guard let target = FCMTarget(parsing: text) else {
                throw ActivityRegistrationRequest.bad(
                    "fcm-token must be the app instance's FCM registration token, or fid: and its Firebase installation ID (printable ASCII without spaces or quotes, at most 4096 characters)"
                )
            }
            return .set(target.text)
        default:
            throw ActivityRegistrationRequest.bad("fcm-token must be a string, or null to remove it")
        }
    }

    /// The lines of an NDJSON import, each a whole follower with its `device`; blank lines are
    /// skipped. A bad line refuses the whole import, naming the line.
    static func lines(
        _ body: [UInt8], limit: Int, environments: APNsEnvironments = .both
    ) throws(BridgeHTTPError) -> [Follower] {
        var followers: [Follower] = []
        var number = 0
        for text in body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            guard !text.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) else { continue }
            guard followers.count < limit else {
                throw BridgeHTTPError(
                    .contentTooLarge, code: "too-many-followers",
                    reason: "an import takes at most \(limit) followers; send the rest in another")
            }
            followers.append(try Self.line(Array(text), number: number, environments: environments))
        }
        return followers
    }

    /// One import line: a whole follower with its `device`; a refusal names the line.
    static func line(
        _ bytes: [UInt8], number: Int, environments: APNsEnvironments = .both
    ) throws(BridgeHTTPError) -> Follower {
        do throws(BridgeHTTPError) {
            let document: StateValue
            do {
                document = try JSONParser.parse(bytes)
            } catch {
                throw BridgeHTTPError(.badRequest, code: "bad-json", reason: "not JSON: \(error)")
            }
            let request = try FollowerRequest(document, allowed: fields + ["device"])
            return try request.follower(device: request.device ?? "", existing: nil, environments: environments)
        } catch {
            throw BridgeHTTPError(error.status, code: error.code, reason: "line \(number): \(error.reason)")
        }
    }

    /// A device id: 1 to 256 bytes of UTF-8 without control characters, as activity keys.
    static func checkDevice(_ device: String) throws(BridgeHTTPError) {
        if let problem = ActivityKeyRule.problem(with: device) {
            throw BridgeHTTPError(
                .badRequest, code: "bad-device",
                reason: problem.replacingOccurrences(of: "activity key", with: "device id"))
        }
    }
}
