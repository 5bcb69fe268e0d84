/// Finds the APNs signing key from command-line values or the environment, and checks its
/// identifiers before anything is sent.
///
/// The key: `--key FILE`, else `LIVELINE_APNS_KEY_FILE` (a path), else `LIVELINE_APNS_KEY` (the
/// PEM itself); `--key-id` or `LIVELINE_APNS_KEY_ID`; `--team-id` or `LIVELINE_APNS_TEAM_ID`.
/// Nothing at all means "no credentials" (Liveline then plays against its mock); some but not
/// all is an error that names what is missing. A Key ID or Team ID of the wrong shape is an
/// error that names where it came from (``APNsIdentifiers``).
public enum Credentials {
    /// The environment variable holding the `.p8` key's PEM text itself.
    public static let keyVariable = "LIVELINE_APNS_KEY"
    /// The environment variable holding the path of the `.p8` key file.
    public static let keyFileVariable = "LIVELINE_APNS_KEY_FILE"
    /// The environment variable holding the key's 10-character Key ID.
    public static let keyIDVariable = "LIVELINE_APNS_KEY_ID"
    /// The environment variable holding the 10-character Team ID.
    public static let teamIDVariable = "LIVELINE_APNS_TEAM_ID"
    /// The app's bundle id, for commands that take `--topic`.
    public static let topicVariable = "LIVELINE_APNS_TOPIC"
    /// `sandbox` or `production`, for commands that take `--env`.
    public static let environmentVariable = "LIVELINE_APNS_ENVIRONMENT"

    /// The signing key from the values given (a flag's, or nil) and `environment`, flags first.
    /// Returns nil when neither names any part of a key; throws when some parts are given and
    /// others are missing, or a part is unreadable or of the wrong shape.
    public static func resolve(
        keyFile: String?, keyID: String?, teamID: String?, environment: [String: String]
    ) throws(CredentialsError) -> SigningKey? {
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let file = keyFile ?? variable(keyFileVariable)
        let pem = keyFile == nil ? variable(keyVariable) : nil
        let keyIDSetting = keyID.map { ("--key-id", $0) } ?? variable(keyIDVariable).map { (keyIDVariable, $0) }
        let teamIDSetting = teamID.map { ("--team-id", $0) } ?? variable(teamIDVariable).map { (teamIDVariable, $0) }
        if file == nil, pem == nil, keyIDSetting == nil, teamIDSetting == nil { return nil }
        if keyFile == nil, variable(keyFileVariable) != nil, variable(keyVariable) != nil {
            throw .conflicting(
                "\(keyFileVariable) and \(keyVariable) are both set; keep the one that holds the key (a path, or the PEM itself)"
            )
        }
        guard file != nil || pem != nil else {
            throw .missing("the key (--key FILE.p8, \(keyFileVariable) or \(keyVariable))")
        }
        guard let (keyIDOrigin, keyID) = keyIDSetting else {
            throw .missing("the Key ID (--key-id or \(keyIDVariable))")
        }
        guard let (teamIDOrigin, teamID) = teamIDSetting else {
            throw .missing("the Team ID (--team-id or \(teamIDVariable))")
        }
        let key: SigningKey
        if let file {
            key = try SigningKey(file: file, keyID: keyID, teamID: teamID)
        } else {
            key = try SigningKey(pem: pem ?? "", keyID: keyID, teamID: teamID)
        }
        if let problem = APNsIdentifiers.keyIDProblem(key.keyID) {
            throw .invalid(setting: keyIDOrigin, value: key.keyID, problem: problem)
        }
        if let problem = APNsIdentifiers.teamIDProblem(key.teamID) {
            throw .invalid(setting: teamIDOrigin, value: key.teamID, problem: problem)
        }
        return key
    }
}
