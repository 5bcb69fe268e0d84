import LivelineCore

/// Checks a `messages:send` request as FCM's HTTP v1 API does, answering FCM's error bodies.
///
/// It is pure: the state it needs (which access tokens are valid and for which project, which
/// app instances exist) is asked of ``Registry``, so the server that will carry it and the tests
/// share one set of rules. The checks, in FCM's order: the path and method, the access token,
/// the JSON, the fields the API knows (snake_case or lowerCamelCase), exactly one target, data
/// values that are all strings and keys FCM does not reserve, the data's size, `android`'s
/// priority, `ttl` and `collapse_key`, and last the target itself.
public struct FCMRequestValidator: Sendable {
    /// What the validator asks of the mock's state.
    public struct Registry: Sendable {
        /// The project an access token may send for, or nil when the token is unknown or expired.
        public var projectForToken: @Sendable (String) -> String?
        /// Whether an app instance, in `project`, may be sent to.
        public var instance: @Sendable (FCMRecipient, _ project: String) -> InstanceStatus

        public init(
            projectForToken: @escaping @Sendable (String) -> String?,
            instance: @escaping @Sendable (FCMRecipient, String) -> InstanceStatus
        ) {
            self.projectForToken = projectForToken
            self.instance = instance
        }
    }

    /// An app instance as FCM knows it.
    public enum InstanceStatus: Sendable, Hashable {
        case registered
        /// Uninstalled or expired: `UNREGISTERED`.
        case unregistered
        /// Registered with another project: `SENDER_ID_MISMATCH`.
        case otherProject
        /// Never issued: `INVALID_ARGUMENT`.
        case unknown
    }

    /// The longest time to live FCM takes: 28 days.
    public static let maxTTL: Millis = 28 * 86_400_000

    public let registry: Registry

    public init(registry: Registry) {
        self.registry = registry
    }

    /// Checks one request.
    public func validate(
        method: String, path: String, headers: [(name: String, value: String)], body: [UInt8]
    ) -> Result<ValidatedFCMMessage, FCMErrorAnswer> {
        var memo = FCMBodyMemo()
        return validate(method: method, path: path, headers: headers, body: body, memo: &memo)
    }

    /// Checks one request, with the body a connection read last (`memo`): a body that differs
    /// from it only in its target is not read again once a second such body read the same.
    /// The answer is the same as without the memo.
    public func validate(
        method: String, path: String, headers: [(name: String, value: String)], body: [UInt8],
        memo: inout FCMBodyMemo
    ) -> Result<ValidatedFCMMessage, FCMErrorAnswer> {
        do throws(FCMErrorAnswer) {
            let project = try checkHead(method: method, path: path, headers: headers)
            let message: ValidatedFCMMessage
            switch memo.message(for: body, project: project) {
            case .known(let known):
                message = known
            case .expected(let expected):
                message = try read(body, project: project)
                memo.confirm(message == expected)
            case .unknown:
                message = try read(body, project: project)
                memo.remember(body, message)
            }
            try checkRecipient(message.recipient, project: project)
            return .success(message)
        } catch {
            return .failure(error)
        }
    }

    /// The path, the method, the access token and the content type; the project the path names.
    private func checkHead(
        method: String, path: String, headers: [(name: String, value: String)]
    ) throws(FCMErrorAnswer) -> String {
        let project = try Self.project(in: path)
        guard method == "POST" else { throw .notFound("Method not found.") }
        let authorization = headers.first { Self.isNamed($0.name, "authorization") }?.value ?? ""
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
            let granted = registry.projectForToken(String(parts[1]))
        else { throw .unauthenticated }
        guard granted == project else { throw .permissionDenied(project: project) }
        if let type = headers.first(where: { Self.isNamed($0.name, "content-type") })?.value,
            !type.lowercased().hasPrefix("application/json")
        {
            throw .invalidField("", "Invalid JSON payload received. Unexpected content type '\(type)'.")
        }
        return project
    }

    /// The body, read as FCM reads it: everything but whether the target may be sent to.
    private func read(_ body: [UInt8], project: String) throws(FCMErrorAnswer) -> ValidatedFCMMessage {
        let root: StateValue
        do {
            root = try JSONParser.parse(body, limits: JSONParser.Limits(depth: 32, keys: 10_000))
        } catch {
            throw .invalidField("", "Invalid JSON payload received. \(error).")
        }
        guard case .object(let request) = root else {
            throw .invalidField("", "Invalid JSON payload received. Expected an object.")
        }
        try Self.knownNames(request, at: "", allowed: Self.requestNames)
        var validateOnly = false
        if let value = request["validate_only"] ?? request["validateOnly"] {
            guard case .bool(let flag) = value else {
                throw .invalidField(
                    "validate_only", "Invalid value at 'validate_only' (TYPE_BOOL), \(value.templateText)")
            }
            validateOnly = flag
        }
        guard case .object(let message)? = request["message"] else {
            throw .invalidField("message", "Invalid value at 'message': expected the message object.")
        }
        try Self.knownNames(message, at: "message", allowed: Self.messageNames)

        var recipient: FCMRecipient?
        for (key, make) in [
            ("token", FCMRecipient.token), ("fid", FCMRecipient.fid), ("topic", FCMRecipient.topic),
            ("condition", FCMRecipient.condition),
        ] {
            guard let value = message[key] else { continue }
            guard case .string(let text) = value else {
                throw .invalidField(
                    "message.\(key)", "Invalid value at 'message.\(key)' (TYPE_STRING), \(value.templateText)")
            }
            if recipient != nil {
                throw .invalidField(
                    "message",
                    "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(key)'")
            }
            recipient = make(text)
        }
        guard let recipient else { throw .invalidArgument("Recipient of the message is not set.") }

        var data = try Self.data(message["data"], at: "message.data")
        var priority = FCMPriority.normal
        var ttl = Self.maxTTL
        var collapseKey: String?
        var hasNotification = message["notification"] != nil
        if let value = message["android"] {
            guard case .object(let android) = value else {
                throw .invalidField("message.android", "Invalid value at 'message.android': expected an object.")
            }
            try Self.knownNames(android, at: "message.android", allowed: Self.androidNames)
            if let value = android["priority"] {
                // Any case: the Admin SDKs send "high" and "normal", and FCM takes them.
                guard case .string(let text) = value, let known = FCMPriority(rawValue: text.uppercased()) else {
                    throw .invalidField(
                        "message.android.priority",
                        "Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), \(value.templateText)"
                    )
                }
                priority = known
            }
            if let value = android["ttl"] {
                guard case .string(let text) = value, let millis = Self.duration(text) else {
                    throw .invalidField(
                        "message.android.ttl",
                        "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \(value.templateText)"
                    )
                }
                guard millis <= Self.maxTTL else {
                    throw .invalidArgument(
                        "Request contains an invalid argument.", field: "message.android.ttl",
                        description: "The ttl \(text) is over FCM's maximum of 2419200s (28 days)")
                }
                ttl = millis
            }
            if let value = android["collapse_key"] ?? android["collapseKey"] {
                guard case .string(let text) = value else {
                    throw .invalidField(
                        "message.android.collapse_key",
                        "Invalid value at 'message.android.collapse_key' (TYPE_STRING), \(value.templateText)")
                }
                collapseKey = text
            }
            if android["data"] != nil { data = try Self.data(android["data"], at: "message.android.data") }
            if android["notification"] != nil { hasNotification = true }
        }
        if data.byteCount > FCMData.limit {
            throw .invalidArgument(
                "Request contains an invalid argument.", field: "message.data",
                description:
                    "The data payload is \(data.byteCount) bytes of keys and values, over FCM's \(FCMData.limit)")
        }
        return ValidatedFCMMessage(
            project: project, recipient: recipient, data: data, priority: priority, ttl: ttl,
            collapseKey: collapseKey, validateOnly: validateOnly, hasNotification: hasNotification)
    }

    /// Whether the target may be sent to: a well-formed instance id that FCM knows for `project`,
    /// a topic name, or a condition.
    private func checkRecipient(_ recipient: FCMRecipient, project: String) throws(FCMErrorAnswer) {
        switch recipient {
        case .token(let value), .fid(let value):
            let field = recipient == .token(value) ? "message.token" : "message.fid"
            guard Self.isInstanceID(value) else { throw .invalidToken(field: field) }
            switch registry.instance(recipient, project) {
            case .registered: break
            case .unregistered: throw .unregistered
            case .otherProject: throw .senderIDMismatch
            case .unknown: throw .invalidToken(field: field)
            }
        case .topic(let topic):
            guard !topic.isEmpty, topic.allSatisfy({ $0.isLetter || $0.isNumber || "-_.~%".contains($0) }) else {
                throw .invalidArgument("Invalid topic name.", field: "message.topic")
            }
        case .condition(let condition):
            guard !condition.isEmpty else { throw .invalidArgument("Invalid condition.", field: "message.condition") }
        }
    }

    /// The names a request, its `message` and `message.android` may have (snake_case or lowerCamelCase).
    static let requestNames: Set<String> = ["message", "validate_only", "validateOnly"]
    static let messageNames: Set<String> = [
        "name", "data", "notification", "android", "apns", "webpush", "fcm_options", "fcmOptions", "token", "topic",
        "condition", "fid",
    ]
    static let androidNames: Set<String> = [
        "collapse_key", "collapseKey", "priority", "ttl", "restricted_package_name", "restrictedPackageName", "data",
        "notification", "fcm_options", "fcmOptions", "direct_boot_ok", "directBootOk", "restricted_satellite_ok",
        "restrictedSatelliteOk", "bandwidth_constrained_ok", "bandwidthConstrainedOk",
    ]

    /// Whether a header's name is `lowercase` in any case, without making a lowercased copy.
    static func isNamed(_ name: String, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        var index = 0
        for byte in name.utf8 {
            guard index < expected.count else { return false }
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            guard folded == expected[index] else { return false }
            index += 1
        }
        return index == expected.count
    }

    /// `{project}` of `/v1/projects/{project}/messages:send`.
    static func project(in path: String) throws(FCMErrorAnswer) -> String {
        let prefix = "/v1/projects/", suffix = "/messages:send"
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.count > prefix.count + suffix.count else {
            throw .notFound("The requested URL \(path) was not found on this server.")
        }
        let project = String(path.dropFirst(prefix.count).dropLast(suffix.count))
        guard !project.contains("/") else { throw .notFound("The requested URL \(path) was not found on this server.") }
        return project
    }

    /// Refuses a name the API does not have, as protobuf's JSON reader does.
    static func knownNames(_ object: StateObject, at place: String, allowed: Set<String>) throws(FCMErrorAnswer) {
        for key in object.keys where !allowed.contains(key) {
            let at = place.isEmpty ? "" : " at '\(place)'"
            throw .invalidField(
                place, "Invalid JSON payload received. Unknown name \"\(key)\"\(at): Cannot find field.")
        }
    }

    /// A data map: every value a string, no key FCM reserves.
    static func data(_ value: StateValue?, at place: String) throws(FCMErrorAnswer) -> FCMData {
        guard let value else { return FCMData() }
        guard case .object(let object) = value else {
            throw .invalidField(place, "Invalid value at '\(place)': expected a map of strings.")
        }
        var data = FCMData()
        for (index, key) in object.keys.enumerated() {
            guard case .string(let text) = object.values[index] else {
                let field = "\(place)[\(index)].value"
                throw .invalidField(
                    field, "Invalid value at '\(field)' (TYPE_STRING), \(object.values[index].templateText)")
            }
            if let reason = LiveUpdateKeys.reservedReason(key) {
                throw .invalidArgument(
                    "Request contains an invalid argument.", field: place,
                    description: "Invalid data payload key '\(key)': \(reason)")
            }
            data.append(key, text)
        }
        return data
    }

    /// A protobuf `Duration` in JSON: seconds with up to nine decimals and an `s` (`"3.5s"`).
    static func duration(_ text: String) -> Millis? {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let pieces = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count), let whole = Int64(pieces[0]), whole >= 0,
            pieces[0].allSatisfy(\.isASCIIDigitCharacter)
        else { return nil }
        var millis = whole * 1000
        if pieces.count == 2 {
            let fraction = pieces[1]
            guard (1...9).contains(fraction.count), fraction.allSatisfy(\.isASCIIDigitCharacter) else { return nil }
            millis += Int64(String((fraction + "00").prefix(3))) ?? 0
        }
        return millis
    }

    /// A registration token or installation id as FCM issues them: letters, digits, `-`, `_`, `:`.
    static func isInstanceID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 4096
            && text.unicodeScalars.allSatisfy {
                ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-"
                    || $0 == "_" || $0 == ":"
            }
    }
}

extension Character {
    var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}
