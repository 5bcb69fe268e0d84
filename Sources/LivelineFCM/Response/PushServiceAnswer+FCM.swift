import LivelineAPNs
import LivelineCore

extension PushServiceAnswer {
    /// What FCM's answer to `messages:send` means, by its status and FCM's error code
    /// (docs/answers.md has the table): the same kinds as an APNs answer, so ``AnswerPolicy``
    /// decides for both platforms. `now` (UNIX seconds) reads a `Retry-After` given as a date.
    public init(fcmStatus status: Int, body: [UInt8], retryAfter: String? = nil, now: Int64 = 0) {
        if (200..<300).contains(status) {
            self = .accepted
            return
        }
        self.init(FCMError(httpStatus: status, body: body, retryAfter: retryAfter, now: now))
    }

    /// What an error FCM answered means.
    ///
    /// - `UNAVAILABLE`, `INTERNAL`, `QUOTA_EXCEEDED` (and any 429 or 5xx): later, after FCM's
    ///   `Retry-After` when it gave one.
    /// - `UNREGISTERED`, or `INVALID_ARGUMENT` about the token or installation id: the app
    ///   instance cannot be sent to; forget it.
    /// - `SENDER_ID_MISMATCH`, `THIRD_PARTY_AUTH_ERROR`, a 403, a project FCM does not know, a
    ///   redirect or a proxy asking for credentials: the setup is wrong.
    /// - A 401 without a code: the access token expired or was revoked; fetch a new one, once.
    /// - Anything else: this message cannot be sent as it is.
    public init(_ error: FCMError) {
        let status = error.httpStatus
        let named = error.errorCode?.rawValue ?? error.status ?? "status \(status)"
        let retryAfter = error.retryAfter.map { Duration.seconds($0) }
        func misconfigured(_ fix: String) -> PushServiceAnswer {
            .misconfigured(ConfigurationProblem(reason: named, status: status, fix: fix))
        }
        switch error.errorCode {
        case .unregistered?:
            self = .tokenInvalid(TokenProblem(reason: named, status: status))
        case .invalidArgument?:
            self =
                error.concernsTarget
                ? .tokenInvalid(TokenProblem(reason: named, status: status)) : .requestInvalid(reason: named)
        case .senderIDMismatch?:
            self = misconfigured(
                "FCM refused the token: it belongs to another Firebase project than the service account's (SENDER_ID_MISMATCH); use the service account of the app's project (--fcm-service-account)"
            )
        case .thirdPartyAuthError?:
            self = misconfigured(
                "FCM could not authenticate with APNs or the web push service (THIRD_PARTY_AUTH_ERROR): check the APNs key or certificate uploaded to the Firebase project"
            )
        case .quotaExceeded?:
            self = .throttled(reason: named, retryAfter: retryAfter)
        case .unavailable?, .internal?:
            self = .unavailable(reason: named, retryAfter: retryAfter)
        default:
            switch status {
            case 400:
                self =
                    error.concernsTarget
                    ? .tokenInvalid(TokenProblem(reason: named, status: status)) : .requestInvalid(reason: named)
            case 401:
                self = .credentialExpired(
                    ExpiredCredential(
                        reason: named, status: status,
                        fixWhenRepeated:
                            "FCM refused an access token fetched a moment ago (\(error.message)): check that the service account (--fcm-service-account) belongs to the project and is not disabled, that its key was not deleted, and that this machine's clock is right"
                    ))
            case 403:
                self = misconfigured(
                    "FCM refused the service account (\(error.message)): enable the Firebase Cloud Messaging API for the project and let the account send (the Firebase Cloud Messaging API Admin role)"
                )
            case 404:
                self =
                    error.concernsTarget
                    ? .tokenInvalid(TokenProblem(reason: named, status: status))
                    : misconfigured(
                        "FCM does not know the project or the path (\(error.message)): check the key file's project_id and the FCM URL (--fcm-url)"
                    )
            case 429:
                self = .throttled(reason: named, retryAfter: retryAfter)
            case 408, 500..<600:
                self = .unavailable(reason: named, retryAfter: retryAfter)
            case 300..<400:
                self = misconfigured(
                    "the server answered a redirect (\(status)): FCM never does; check the FCM URL (--fcm-url) and any proxy"
                )
            case 407:
                self = misconfigured(
                    "a proxy asked for credentials (407): FCM never does; check the FCM URL (--fcm-url) and any proxy")
            default:
                self = .requestInvalid(reason: named)
            }
        }
    }

    /// What a failure to get an access token means: the token endpoint busy or failing (429,
    /// 5xx) is an outage, retried; an endpoint that refused the service account, or answered
    /// what OAuth 2.0 does not, is a setup problem.
    public init(accessTokenFailure error: FCMAuthError) {
        if error.isTransient {
            self = .unavailable(reason: "token endpoint: \(error)", retryAfter: nil)
            return
        }
        switch error {
        case .refused(let status, let code, _):
            self = .misconfigured(
                ConfigurationProblem(
                    reason: code, status: status,
                    fix:
                        "no access token for FCM: \(error); check the service account's key file (--fcm-service-account): a deleted or rotated key, a disabled account, or this machine's clock"
                ))
        case .malformedAnswer(let status, _):
            self = .misconfigured(
                ConfigurationProblem(
                    reason: "token endpoint", status: status,
                    fix: "no access token for FCM: \(error); check the key file's token_uri"))
        case .signing:
            self = .misconfigured(
                ConfigurationProblem(
                    reason: "assertion", status: nil,
                    fix: "no access token for FCM: \(error); check the key file's private_key"))
        }
    }
}
