import LivelineCore

extension PushServiceAnswer {
    /// What APNs' answer, or the failure to get one, means (docs/answers.md has the table).
    public init(_ result: Result<APNsResponse, any Error>) {
        switch result {
        case .success(let response): self.init(response)
        case .failure(let error): self.init(failure: error)
        }
    }

    /// What a request that got no answer means: a TLS certificate that is not trusted, or a
    /// server that does not speak HTTP/2, is a setup problem; anything else (a refused or lost
    /// connection, GOAWAY, a reset, no answer in time) is an outage, retried.
    public init(failure error: any Error) {
        guard let transport = error as? APNsTransportError else {
            self = .unavailable(reason: "transport", retryAfter: nil)
            return
        }
        switch transport {
        case .tlsFailed:
            self = .misconfigured(ConfigurationProblem(reason: "TLS", status: nil, fix: transport.description))
        case .notHTTP2:
            self = .misconfigured(ConfigurationProblem(reason: "HTTP/2", status: nil, fix: transport.description))
        default:
            self = .unavailable(reason: "transport", retryAfter: nil)
        }
    }

    /// What an APNs answer means, by its status and reason; a reason this table does not know
    /// is read by its status. `now` (UNIX milliseconds) reads a `Retry-After` given as a date.
    public init(_ response: APNsResponse, now: Millis? = nil) {
        if response.isSuccess {
            self = .accepted
            return
        }
        let status = response.status
        let reason = response.reason
        let named = reason?.rawValue ?? "status \(status)"
        let retryAfter = response.retryAfter.flatMap { RetryAfter.parse($0, now: now ?? WallClock().now()) }
        func misconfigured() -> PushServiceAnswer {
            .misconfigured(
                ConfigurationProblem(reason: named, status: status, fix: Self.fix(for: reason, status: status)))
        }
        switch status {
        case 400:
            switch reason {
            case .badDeviceToken?:
                self = .tokenInvalid(TokenProblem(reason: named, status: status, mayBelongToOtherEnvironment: true))
            case .deviceTokenNotForTopic?:
                self = .tokenInvalid(TokenProblem(reason: named, status: status))
            case .badTopic?, .missingTopic?, .topicDisallowed?, .invalidPushType?, .topicMismatch?,
                .featureNotEnabled?:
                self = misconfigured()
            case .idleTimeout?:
                self = .unavailable(reason: named, retryAfter: retryAfter)
            default:
                self = .requestInvalid(reason: named)
            }
        case 403:
            self =
                reason == .expiredProviderToken
                ? .credentialExpired(
                    ExpiredCredential(
                        reason: named, status: status,
                        fixWhenRepeated:
                            "APNs called a freshly signed provider token expired: this machine's clock is wrong (APNs judges a token's age by its own clock); set the clock right (NTP)"
                    )) : misconfigured()
        case 410:
            self = .tokenInvalid(TokenProblem(reason: reason?.rawValue ?? "Unregistered", status: status))
        case 429:
            self = .throttled(reason: named, retryAfter: retryAfter)
        case 408, 500..<600:
            self = .unavailable(reason: named, retryAfter: retryAfter)
        case 300..<400, 401, 404, 405, 407:
            self = misconfigured()
        default:
            self = .requestInvalid(reason: named)
        }
    }

    /// How to fix a setup APNs refused, in a user's words: the flags `liveline play` takes and
    /// the bridge configuration's keys.
    static func fix(for reason: APNsReason?, status: Int) -> String {
        switch reason {
        case .badTopic?, .missingTopic?, .topicDisallowed?, .topicMismatch?:
            return
                "APNs refused the topic: it must be the app's bundle id (--topic, or apns.topic; Liveline adds .push-type.liveactivity), and the key's team must own the app"
        case .invalidPushType?:
            return "APNs refused apns-push-type liveactivity for this topic: check the bundle id (--topic, apns.topic)"
        case .featureNotEnabled?:
            return
                "APNs refused the broadcast: enable Broadcast Capability for the app's Push Notifications in the developer portal (Certificates, Identifiers & Profiles)"
        case .invalidProviderToken?, .unrelatedKeyIdInToken?:
            return
                "APNs refused the provider token: check the Key ID (--key-id, apns.key-id: the 10 characters of the .p8 key's name) and the Team ID (--team-id, apns.team-id), and that the key is enabled for APNs and not revoked"
        case .badEnvironmentKeyIdInToken?:
            return
                "the key is not enabled for this environment: sandbox serves development builds, production TestFlight and App Store builds (--env, or a token's environment); or enable the key for both"
        case .missingProviderToken?, .badCertificate?, .badCertificateEnvironment?, .forbidden?:
            return
                "APNs refused the credentials (\(reason?.rawValue ?? "403")): Live Activities need token authentication with a .p8 key (--key, --key-id, --team-id, or apns: key, key-id, team-id)"
        case .badPath?, .methodNotAllowed?:
            return "APNs did not recognise the request (\(reason?.rawValue ?? "")): check the APNs URL (--apns-url)"
        default:
            switch status {
            case 300..<400:
                return "the server answered a redirect (\(status)): APNs never does; check the APNs URL and any proxy"
            case 401, 407:
                return "a proxy asked for credentials (\(status)): APNs never does; check the APNs URL and any proxy"
            default:
                return "APNs refused the request (\(reason?.rawValue ?? "status \(status)"))"
            }
        }
    }
}
