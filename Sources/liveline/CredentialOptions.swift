import ArgumentParser
import Foundation
import LivelineAPNs

/// `--key`, `--key-id`, `--team-id`, shared by the commands that talk to APNs; each falls back
/// to its `LIVELINE_APNS_*` variable (``Credentials``).
struct CredentialOptions: ParsableArguments {
    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "The APNs auth key, a .p8 file (or LIVELINE_APNS_KEY_FILE with its path, or LIVELINE_APNS_KEY with the PEM itself).",
            valueName: "file.p8"))
    var keyFile: String?

    @Option(help: ArgumentHelp("The key's 10-character Key ID (or LIVELINE_APNS_KEY_ID).", valueName: "id"))
    var keyID: String?

    @Option(help: ArgumentHelp("Your Apple Developer Team ID (or LIVELINE_APNS_TEAM_ID).", valueName: "id"))
    var teamID: String?

    /// The key, if any, with its Key ID and Team ID checked; a key file others can read is
    /// used, with a warning on standard error.
    func signingKey() throws(CredentialsError) -> SigningKey? {
        let environment = ProcessInfo.processInfo.environment
        let key = try Credentials.resolve(keyFile: keyFile, keyID: keyID, teamID: teamID, environment: environment)
        let file = keyFile ?? environment[Credentials.keyFileVariable].flatMap { $0.isEmpty ? nil : $0 }
        if key != nil, let file, let warning = SigningKey.exposure(ofFile: file) {
            Terminal.error("warning: \(warning)")
        }
        return key
    }
}
