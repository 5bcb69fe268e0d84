import LivelineCore

/// What a sender should do with FCM's answer: the same choices as for APNs's, by FCM's codes.
public enum FCMDisposition: Sendable, Hashable {
    /// Sent; FCM names the message `projects/{project}/messages/{id}`.
    case delivered(name: String)
    /// Try again after a back-off, at least `after` seconds when FCM said (`Retry-After`):
    /// `UNAVAILABLE`, `INTERNAL`, `QUOTA_EXCEEDED`.
    case retry(after: Int64?)
    /// The access token expired or was refused (401 without a third-party cause): get a new one
    /// and retry once.
    case renewTokenAndRetry
    /// The app instance is gone (`UNREGISTERED`) or its token is not valid (`INVALID_ARGUMENT`
    /// about the token): stop sending to it.
    case tokenGone
    /// The setup is wrong (another project's token, the service account's permission, an APNs
    /// key in Firebase): nothing will succeed until it is fixed.
    case configurationError(String)
    /// This message is wrong (a bad field, too large) and will never be sent; later ones may.
    case rejected

    /// Classifies an answer: its status, and for an error its body and `Retry-After`.
    public init(status: Int, body: [UInt8], retryAfter: String? = nil, now: Int64 = 0) {
        if (200..<300).contains(status) {
            self = .delivered(name: FCMSendAnswer.messageName(in: body) ?? "")
            return
        }
        self.init(FCMError(httpStatus: status, body: body, retryAfter: retryAfter, now: now))
    }

    /// Classifies an error.
    public init(_ error: FCMError) {
        switch error.errorCode {
        case .unregistered?:
            self = .tokenGone
        case .invalidArgument?:
            self = error.concernsTarget ? .tokenGone : .rejected
        case .senderIDMismatch?:
            self = .configurationError(
                "FCM refused the token: it belongs to another Firebase project than the service account's (SENDER_ID_MISMATCH); use the service account of the app's project"
            )
        case .thirdPartyAuthError?:
            self = .configurationError(
                "FCM could not authenticate with APNs or the web push service (THIRD_PARTY_AUTH_ERROR): check the APNs key or certificate uploaded to the Firebase project"
            )
        case .quotaExceeded?, .unavailable?, .internal?:
            self = .retry(after: error.retryAfter)
        default:
            switch error.httpStatus {
            case 401: self = .renewTokenAndRetry
            case 403:
                self = .configurationError(
                    "FCM refused the service account (\(error.status ?? "403")): it needs the Firebase Cloud Messaging API enabled and permission to send (\(error.message))"
                )
            case 404:
                self =
                    error.concernsTarget
                    ? .tokenGone
                    : .configurationError(
                        "FCM does not know the project (\(error.message)): check the project id")
            case 429, 500, 502, 503, 504: self = .retry(after: error.retryAfter)
            case 400: self = error.concernsTarget ? .tokenGone : .rejected
            default: self = .rejected
            }
        }
    }
}

/// A successful `messages:send` answer, `{"name": "projects/{project}/messages/{id}"}`.
public enum FCMSendAnswer {
    /// The message's name in a success body, if the body has one.
    public static func messageName(in body: [UInt8]) -> String? {
        guard case .object(let root)? = try? JSONParser.parse(body), case .string(let name)? = root["name"] else {
            return nil
        }
        return name
    }
}
