import LivelineFCM

/// `fcm:`: where Android followers' messages go. Without it the bridge sends them to an
/// embedded mock FCM, as it sends pushes to an embedded mock APNs without `apns:`.
///
/// ```yaml
/// fcm:
///   service-account: firebase-adminsdk.json   # the Firebase project's service-account key
///   project: my-app-1234                      # default: the key's project_id
///   url: https://127.0.0.1:2198               # default: https://fcm.googleapis.com
///   ca-file: mock-fcm.pem                     # trust this certificate (a mock's)
/// ```
public struct FCMSettings: Sendable {
    /// The service account, read when the configuration is.
    public var account: ServiceAccount
    /// The service-account JSON's path, resolved against the configuration's folder.
    public var accountPath: String
    /// The Firebase project messages are sent under.
    public var project: String
    /// FCM's address: FCM itself, or a mock's.
    public var url: String
    /// PEM certificates to trust for FCM and the token endpoint; nil: the system's.
    public var caFile: String?

    /// Settings with the parts given.
    public init(
        account: ServiceAccount, accountPath: String, project: String? = nil,
        url: String = "https://" + FCMSendRequest.host, caFile: String? = nil
    ) {
        self.account = account
        self.accountPath = accountPath
        self.project = project ?? account.projectID
        self.url = url
        self.caFile = caFile
    }
}
