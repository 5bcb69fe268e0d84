import ArgumentParser
import Foundation
import Liveline
import LivelineAPNs

/// `liveline token`
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a provider token (JWT) for hand-made curl requests.",
        discussion: """
            The token is ES256-signed with your .p8 key and valid for an hour. Use it as
            AUTHENTICATION_TOKEN with the commands of `liveline plan --format curl`:

              export AUTHENTICATION_TOKEN=$(liveline token --key AuthKey_ABC123DEFG.p8 \\
                  --key-id ABC123DEFG --team-id DEF123GHIJ)

            The key can also come from the environment: LIVELINE_APNS_KEY (the PEM
            itself), LIVELINE_APNS_KEY_ID and LIVELINE_APNS_TEAM_ID.

            Exit status: 0 success, 1 missing or unusable credentials, 64 usage error.
            """
    )

    @OptionGroup var credentials: CredentialOptions

    mutating func run() throws {
        do {
            guard let key = try credentials.signingKey() else {
                Terminal.error(
                    "error: no key given; pass --key FILE.p8 --key-id ID --team-id ID (or set \(Credentials.keyVariable), \(Credentials.keyIDVariable) and \(Credentials.teamIDVariable))"
                )
                throw ExitCode(1)
            }
            Terminal.out(ProviderToken(key: key, issuedAt: Int64(Date().timeIntervalSince1970)).value)
        } catch let error as CredentialsError {
            Terminal.error("error: \(error)")
            throw ExitCode(1)
        }
    }
}

/// `--key`, `--key-id`, `--team-id`, shared by the commands that talk to APNs.
struct CredentialOptions: ParsableArguments {
    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "The APNs auth key, a .p8 file (or LIVELINE_APNS_KEY with the PEM itself).", valueName: "file.p8"))
    var keyFile: String?

    @Option(help: ArgumentHelp("The key's 10-character Key ID (or LIVELINE_APNS_KEY_ID).", valueName: "id"))
    var keyID: String?

    @Option(help: ArgumentHelp("Your Apple Developer Team ID (or LIVELINE_APNS_TEAM_ID).", valueName: "id"))
    var teamID: String?

    /// The key, if any; a key file others can read is used, with a warning on standard error.
    func signingKey() throws(CredentialsError) -> SigningKey? {
        let key = try Credentials.resolve(
            keyFile: keyFile, keyID: keyID, teamID: teamID, environment: ProcessInfo.processInfo.environment)
        if key != nil, let keyFile, let warning = SigningKey.exposure(ofFile: keyFile) {
            FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
        }
        return key
    }
}
