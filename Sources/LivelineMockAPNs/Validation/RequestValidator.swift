import Liveline
import NIOCore

/// Checks a request the way APNs does and says what it asks for, or which error APNs answers.
///
/// The order of the checks is: path and method, duplicate headers, the provider token, then
/// the push headers (`apns-push-type`, `apns-topic`, `apns-priority`, `apns-expiration`,
/// `apns-id`, `apns-collapse-id`), then the body (present, within the size limit, JSON).
/// Stateless apart from the connection's ``ConnectionAuthState``, which the caller owns.
struct RequestValidator: Sendable {
    /// Verifies tokens; nil accepts any token (or none).
    let verifier: JWTVerifier?

    /// Whether APNs knows the push type; anything else is InvalidPushType. A `switch`, not a
    /// `Set`: no hashing on the hot path.
    static func isKnownPushType(_ type: String) -> Bool {
        switch type {
        case "liveactivity", "alert", "background", "location", "voip", "complication", "fileprovider", "mdm",
            "pushtotalk", "widgets", "controls":
            true
        default:
            false
        }
    }
    static let liveActivityTopicSuffix = LiveActivityTopic.suffix

    /// The body of one request, as received.
    struct Body {
        /// The bytes, when within the limit that applies.
        var buffer: ByteBuffer?
        /// How many bytes arrived in all.
        var size: Int

        /// Parses the body as JSON, straight from the received buffer.
        func json() -> JSONValue? { parsed()?.value }

        /// The body as JSON, and where its first lone surrogate escape is.
        func parsed() -> (value: JSONValue, loneSurrogate: Int?)? {
            guard let buffer else { return nil }
            return buffer.withUnsafeReadableBytes { try? JSONValueReader.parseNotingSurrogates($0) }
        }

        /// What the device reads from a device push's body; nil unless it is a JSON object.
        /// Short strings come from the connection's `strings`.
        func devicePayload(strings: inout JSONStringCache) -> LiveActivityPayload? {
            guard let buffer else { return nil }
            return withUnsafeMutablePointer(to: &strings) { strings in
                buffer.withUnsafeReadableBytes { bytes -> LiveActivityPayload? in
                    do throws(JSONSyntaxError) { return try PushBodyReader.read(bytes, strings: strings) } catch {
                        return nil
                    }
                }
            }
        }

        var text: String { buffer.map { String(buffer: $0) } ?? "" }
    }

    /// `strings` is the connection's cache of the short strings its push bodies repeat.
    func validate(
        _ head: RequestHead, body: Body, auth: inout ConnectionAuthState, strings: inout JSONStringCache, now: Millis
    ) -> Result<ValidatedRequest, APNsError> {
        guard let path = head.path, let method = head.method else { return .failure(.badPath) }
        if method == "POST", let token = Self.deviceTokenFastPath(path) {
            guard let token else { return .failure(.badDeviceToken) }
            return common(head, auth: &auth, now: now).flatMap {
                devicePush(head, token: token, body: body, strings: &strings, warnings: $0)
            }
        }
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { Substring($0) }
        // segments[0] is the empty string before the leading "/".
        guard segments.count >= 3, segments[0].isEmpty else { return .failure(.badPath) }
        switch (segments[1], segments[2]) {
        case ("3", "device"):
            guard segments.count <= 4 else { return .failure(.badPath) }
            guard method == "POST" else { return .failure(.methodNotAllowed) }
            let token = segments.count == 4 ? segments[3] : ""
            guard !token.isEmpty else { return .failure(.missingDeviceToken) }
            guard token.utf8.allSatisfy(\.isHexDigit) else { return .failure(.badDeviceToken) }
            return common(head, auth: &auth, now: now).flatMap {
                devicePush(head, token: Self.lowercasedHex(token), body: body, strings: &strings, warnings: $0)
            }
        case ("4", "broadcasts"):
            guard segments.count == 5, segments[3] == "apps", !segments[4].isEmpty else { return .failure(.badPath) }
            guard method == "POST" else { return .failure(.methodNotAllowed) }
            return common(head, auth: &auth, now: now).flatMap {
                broadcastPush(head, bundleID: String(segments[4]), body: body, warnings: $0)
            }
        case ("1", "apps"):
            guard segments.count == 5, !segments[3].isEmpty else { return .failure(.badPath) }
            let bundleID = String(segments[3])
            switch (segments[4], method) {
            case ("channels", "POST"):
                return common(head, auth: &auth, now: now).flatMap { _ in createChannel(bundleID, head, body: body) }
            case ("channels", "GET"), ("channels", "DELETE"):
                return common(head, auth: &auth, now: now).flatMap { _ in
                    guard let channelID = head.channelID, !channelID.isEmpty else { return .failure(.missingChannelId) }
                    guard Base64.decode(channelID.utf8) != nil else { return .failure(.badChannelId) }
                    return .success(
                        method == "GET"
                            ? .readChannel(bundleID: bundleID, channelID: channelID, requestID: head.requestID)
                            : .deleteChannel(bundleID: bundleID, channelID: channelID, requestID: head.requestID))
                }
            case ("all-channels", "GET"):
                return common(head, auth: &auth, now: now).map { _ in
                    .listChannels(bundleID: bundleID, requestID: head.requestID)
                }
            case ("channels", _), ("all-channels", _):
                return .failure(.methodNotAllowed)
            default:
                return .failure(.badPath)
            }
        default:
            return .failure(.badPath)
        }
    }

    /// Duplicate headers and the provider token: checked for every endpoint. Returns the token's
    /// warnings, for the pushes to report.
    private func common(
        _ head: RequestHead, auth: inout ConnectionAuthState, now: Millis
    ) -> Result<[String], APNsError> {
        if head.duplicateHeader != nil { return .failure(.duplicateHeaders) }
        if let error = auth.authorize(head.authorization, now: now, verifier: verifier) {
            return .failure(error)
        }
        return .success(auth.tokenWarnings)
    }

    private func devicePush(
        _ head: RequestHead, token: String, body: Body, strings: inout JSONStringCache, warnings: [String]
    ) -> Result<ValidatedRequest, APNsError> {
        guard let pushType = head.pushType, Self.isKnownPushType(pushType) else { return .failure(.invalidPushType) }
        guard let topic = head.topic, !topic.isEmpty else { return .failure(.missingTopic) }
        guard Self.isVisibleASCII(topic) else { return .failure(.badTopic) }
        let isLiveActivityTopic = Self.hasSuffix(topic, Self.liveActivityTopicSuffix)
        if pushType == "liveactivity" {
            guard isLiveActivityTopic, topic.utf8.count > Self.liveActivityTopicSuffix.utf8CodeUnitCount else {
                return .failure(.deviceTokenNotForTopic)
            }
        } else if isLiveActivityTopic {
            return .failure(.invalidPushType)
        }
        let priority: Int
        switch pushHeaders(head) {
        case .success(let value): priority = value
        case .failure(let error): return .failure(error)
        }
        if let collapseID = head.collapseID, collapseID.utf8.count > 64 { return .failure(.badCollapseId) }
        guard body.size > 0 else { return .failure(.payloadEmpty) }
        guard body.size <= PayloadLimits.device else { return .failure(.payloadTooLarge) }
        guard let payload = body.devicePayload(strings: &strings) else { return .failure(.payloadEmpty) }
        return .success(
            .device(
                DevicePushRequest(
                    token: token, topic: topic, priority: priority, apnsID: head.apnsID, payload: payload,
                    bodyText: body.text,
                    warnings: warnings)))
    }

    private func broadcastPush(
        _ head: RequestHead, bundleID: String, body: Body, warnings: [String]
    ) -> Result<ValidatedRequest, APNsError> {
        guard head.pushType == "liveactivity" else { return .failure(.invalidPushType) }
        guard let channelID = head.channelID, !channelID.isEmpty else { return .failure(.missingChannelId) }
        guard Base64.decode(channelID.utf8) != nil else { return .failure(.badChannelId) }
        let priority: Int
        switch pushHeaders(head) {
        case .success(let value): priority = value
        case .failure(let error): return .failure(error)
        }
        let expiration = head.expiration.flatMap { Int64($0) }
        return parseBody(body, limit: PayloadLimits.broadcast).map { json, text, loneSurrogate in
            .broadcast(
                BroadcastPushRequest(
                    bundleID: bundleID, channelID: channelID, priority: priority, expiration: expiration,
                    requestID: head.requestID, body: json, bodyText: text, loneSurrogate: loneSurrogate,
                    warnings: warnings))
        }
    }

    /// `apns-priority`, `apns-expiration` and `apns-id`; returns the priority.
    private func pushHeaders(_ head: RequestHead) -> Result<Int, APNsError> {
        var priority = 10
        if let text = head.priority {
            guard text == "5" || text == "10" else { return .failure(.badPriority) }
            priority = text == "5" ? 5 : 10
        }
        if let expiration = head.expiration {
            guard !expiration.isEmpty, expiration.utf8.count <= 12, expiration.utf8.allSatisfy(\.isDecimalDigit) else {
                return .failure(.badExpirationDate)
            }
        }
        if let apnsID = head.apnsID, !Self.isCanonicalUUID(apnsID) { return .failure(.badMessageId) }
        return .success(priority)
    }

    private func createChannel(
        _ bundleID: String, _ head: RequestHead, body: Body
    ) -> Result<ValidatedRequest, APNsError> {
        guard body.size > 0, body.size <= 4096, case .object(let object)? = body.json(),
            case .int(let policy)? = object["message-storage-policy"], policy == 0 || policy == 1,
            object["push-type"]?.stringValue == "LiveActivity"
        else { return .failure(.cannotCreateChannelConfig) }
        return .success(.createChannel(bundleID: bundleID, policy: Int(policy), requestID: head.requestID))
    }

    private func parseBody(_ body: Body, limit: Int) -> Result<(JSONValue, String, Int?), APNsError> {
        guard body.size > 0 else { return .failure(.payloadEmpty) }
        guard body.size <= limit else { return .failure(.payloadTooLarge) }
        guard let parsed = body.parsed(), case .object = parsed.value else { return .failure(.payloadEmpty) }
        return .success((parsed.value, body.text, parsed.loneSurrogate))
    }

    private static let devicePrefix: StaticString = "/3/device/"

    /// The non-empty last segment of a `/3/device/<token>` path, found without splitting: the
    /// common case, checked first.
    static func deviceToken(in path: String) -> Substring? {
        let utf8 = path.utf8
        let prefixCount = devicePrefix.utf8CodeUnitCount
        let matches = devicePrefix.withUTF8Buffer { utf8.starts(with: $0) }
        guard utf8.count > prefixCount, matches else { return nil }
        let rest = path.utf8.dropFirst(prefixCount)
        guard !rest.contains(UInt8(ascii: "/")) else { return nil }
        return Substring(rest)
    }

    /// For `/3/device/<token>` paths: `.some(token)` lowercased when it is hex, `.some(nil)`
    /// when it is not; nil for any other path. One pass over the bytes, copying them lowercased
    /// into the token as they are checked.
    static func deviceTokenFastPath(_ path: String) -> String?? {
        var path = path
        return path.withUTF8 { bytes -> String?? in
            let prefixCount = devicePrefix.utf8CodeUnitCount
            guard bytes.count > prefixCount else { return nil }
            let matches = devicePrefix.withUTF8Buffer { prefix in
                for index in 0..<prefixCount where bytes[index] != prefix[index] { return false }
                return true
            }
            guard matches else { return nil }
            let tokenCount = bytes.count - prefixCount
            // 0 while every byte is hex; 1 once one is not; 2 at a `/` (another path).
            var verdict = 0
            let token = hexLowercase.withUnsafeBufferPointer { table in
                String(unsafeUninitializedCapacity: tokenCount) { out in
                    for index in 0..<tokenCount {
                        let mapped = table[Int(bytes[prefixCount + index])]
                        if mapped <= Self.slash {
                            if mapped == Self.slash {
                                verdict = 2
                                return 0
                            }
                            verdict = 1
                        }
                        out[index] = mapped
                    }
                    return verdict == 0 ? tokenCount : 0
                }
            }
            switch verdict {
            case 0: return .some(token)
            case 1: return .some(nil)
            default: return nil
            }
        }
    }

    /// Each byte as a device token's character: a hex digit in lowercase, ``slash`` for `/`, 0
    /// for anything else. One lookup a byte on every push's path.
    private static let hexLowercase: [UInt8] = (0...255).map { byte -> UInt8 in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) | 0x20
        case UInt8(ascii: "/"): slash
        default: 0
        }
    }
    private static let slash: UInt8 = 1

    /// A hex token in lowercase; no copy work when it already is.
    static func lowercasedHex(_ token: Substring) -> String {
        if !token.utf8.contains(where: { $0 >= 65 && $0 <= 70 }) { return String(token) }
        return String(decoding: token.utf8.map { $0 >= 65 && $0 <= 70 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Byte-wise suffix test (no Unicode normalisation: header values are ASCII).
    static func hasSuffix(_ text: String, _ suffix: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { text in
            suffix.withUTF8Buffer { suffix in
                guard text.count >= suffix.count else { return false }
                let start = text.count - suffix.count
                for index in 0..<suffix.count where text[start + index] != suffix[index] { return false }
                return true
            }
        }
    }

    /// Whether every byte is visible ASCII (0x21-0x7E), as a topic must be.
    static func isVisibleASCII(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            for byte in bytes where byte <= 0x20 || byte >= 0x7F { return false }
            return true
        }
    }

    /// `8-4-4-4-12` hexadecimal digits. APNs documents lowercase; it accepts either case.
    static func isCanonicalUUID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard byte.isHexDigit else { return false }
            }
        }
        return true
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (48...57).contains(self) || (97...102).contains(self) || (65...70).contains(self)
    }

    var isDecimalDigit: Bool { (48...57).contains(self) }
}
