import LivelineAPNs

extension APNsSettings {
    /// The key to sign provider tokens with: the `.p8` file, or the PEM text in the
    /// environment variable, read now (when the bridge starts), never logged.
    public func signingKey(environment: [String: String]) throws(CredentialsError) -> SigningKey {
        switch key {
        case .file(let path):
            return try SigningKey(file: path, keyID: keyID, teamID: teamID)
        case .environment(let name):
            return try SigningKey(pem: environment[name] ?? "", keyID: keyID, teamID: teamID)
        }
    }
}
