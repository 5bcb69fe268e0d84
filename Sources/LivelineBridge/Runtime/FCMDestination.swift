import LivelineAPNs
import LivelineFCM

/// Where the bridge sends Android followers' messages: an FCM client and the Firebase project
/// its messages are sent under (FCM, or the embedded mock FCM when no credentials are given).
public struct FCMDestination: Sendable {
    /// The client; the bridge gives it one attempt per message and keeps its own back-off per
    /// follower (``FCMDestination/clientPolicy``).
    public let client: FCMClient
    /// The project of `POST /v1/projects/{project}/messages:send`.
    public let project: String

    /// `client` sending under `project`.
    public init(client: FCMClient, project: String) {
        self.client = client
        self.project = project
    }

    /// The client's policy in the bridge: one attempt for a message FCM cannot take now
    /// (`UNAVAILABLE`, `INTERNAL`, `QUOTA_EXCEEDED`), so the follower backs off in the store
    /// like an iPhone's after a 429 or 5xx; a refused access token is still renewed at once.
    public static let clientPolicy = AnswerPolicy(retry: RetryPolicy(maxAttempts: 1))
}
