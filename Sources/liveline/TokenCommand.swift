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

            The key can also come from the environment: LIVELINE_APNS_KEY_FILE (the
            .p8 file) or LIVELINE_APNS_KEY (the PEM itself), LIVELINE_APNS_KEY_ID and
            LIVELINE_APNS_TEAM_ID.

            Exit status: 0 success, 1 missing or unusable credentials, 64 usage error.
            """
    )

    @OptionGroup var credentials: CredentialOptions

    mutating func run() throws {
        do {
            guard let key = try credentials.signingKey() else {
                Terminal.error(
                    "error: no key given; pass --key FILE.p8 --key-id ID --team-id ID (or set \(Credentials.keyFileVariable) or \(Credentials.keyVariable), \(Credentials.keyIDVariable) and \(Credentials.teamIDVariable))"
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
