/// Finds the APNs signing key from command-line values or the environment.
///
/// `--key FILE` or `LIVELINE_APNS_KEY` (the PEM itself), `--key-id` or `LIVELINE_APNS_KEY_ID`,
/// `--team-id` or `LIVELINE_APNS_TEAM_ID`. Nothing at all means "no credentials" (Liveline then
/// plays against its mock); some but not all is an error that names what is missing.
public enum Credentials {
    public static let keyVariable = "LIVELINE_APNS_KEY"
    public static let keyIDVariable = "LIVELINE_APNS_KEY_ID"
    public static let teamIDVariable = "LIVELINE_APNS_TEAM_ID"

    public static func resolve(
        keyFile: String?, keyID: String?, teamID: String?, environment: [String: String]
    ) throws(CredentialsError) -> SigningKey? {
        let pem = environment[keyVariable].flatMap { $0.isEmpty ? nil : $0 }
        let keyID = keyID ?? environment[keyIDVariable].flatMap { $0.isEmpty ? nil : $0 }
        let teamID = teamID ?? environment[teamIDVariable].flatMap { $0.isEmpty ? nil : $0 }
        if keyFile == nil, pem == nil, keyID == nil, teamID == nil { return nil }
        guard keyFile != nil || pem != nil else { throw .missing("the key (--key FILE.p8 or \(keyVariable))") }
        guard let keyID else { throw .missing("the Key ID (--key-id or \(keyIDVariable))") }
        guard let teamID else { throw .missing("the Team ID (--team-id or \(teamIDVariable))") }
        if let keyFile { return try SigningKey(file: keyFile, keyID: keyID, teamID: teamID) }
        return try SigningKey(pem: pem ?? "", keyID: keyID, teamID: teamID)
    }
}
