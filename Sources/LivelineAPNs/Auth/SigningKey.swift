import Crypto
import Foundation

/// The token-authentication key APNs gives a team: a `.p8` file (PEM, PKCS#8, P-256), its
/// 10-character Key ID and the Team ID that owns it.
///
/// The private key never appears in descriptions, logs or errors.
public struct SigningKey: Sendable, CustomStringConvertible {
    /// The P-256 scalar. Kept as bytes (swift-crypto's key type is not `Sendable`); a token is
    /// signed about once every 50 minutes, so rebuilding the key then costs nothing.
    private let rawKey: Data
    /// The key's 10-character Key ID, the `kid` of every provider token.
    public let keyID: String
    /// The 10-character Team ID that owns the key, the `iss` of every provider token.
    public let teamID: String

    /// A key from the PEM text of a `.p8` file.
    public init(pem: String, keyID: String, teamID: String) throws(CredentialsError) {
        let keyID = keyID.trimmingCharacters(in: .whitespacesAndNewlines)
        let teamID = teamID.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !keyID.isEmpty else { throw .missing("the Key ID (--key-id or LIVELINE_APNS_KEY_ID)") }
        guard !teamID.isEmpty else { throw .missing("the Team ID (--team-id or LIVELINE_APNS_TEAM_ID)") }
        guard pem.contains("-----BEGIN PRIVATE KEY-----") else {
            throw .badKey(
                "expected a PEM private key beginning with -----BEGIN PRIVATE KEY----- (the .p8 file from developer.apple.com)"
            )
        }
        do {
            rawKey = try P256.Signing.PrivateKey(pemRepresentation: pem).rawRepresentation
        } catch {
            throw .badKey(Self.notP256(pem))
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Why a PEM private key that is not a P-256 one cannot sign for APNs, naming what it is
    /// when that can be told (another curve), so the user knows they picked the wrong file.
    private static func notP256(_ pem: String) -> String {
        let fix = "APNs signs provider tokens with ES256, on the curve P-256: use the .p8 file from developer.apple.com"
        if (try? P384.Signing.PrivateKey(pemRepresentation: pem)) != nil {
            return "the key is on the curve P-384; \(fix)"
        }
        if (try? P521.Signing.PrivateKey(pemRepresentation: pem)) != nil {
            return "the key is on the curve P-521; \(fix)"
        }
        return "the PEM is not a PKCS#8 P-256 private key (the .p8 file from developer.apple.com)"
    }

    /// A key read from a `.p8` file.
    public init(file: String, keyID: String, teamID: String) throws(CredentialsError) {
        guard let data = FileManager.default.contents(atPath: file), let pem = String(data: data, encoding: .utf8)
        else {
            throw .unreadable(file)
        }
        do {
            try self.init(pem: pem, keyID: keyID, teamID: teamID)
        } catch .badKey(let why, nil) {
            throw .badKey(why, file: file)
        }
    }

    /// A warning when the key file at `path` can be read by its group or by others: anyone who
    /// reads a `.p8` can push to every app of the team. Nil when only its owner can.
    public static func exposure(ofFile path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0
        else { return nil }
        let octal = String(mode & 0o777, radix: 8)
        return
            "the APNs key \(path) can be read by \(mode & 0o007 != 0 ? "anyone on this machine" : "its group") (mode \(octal)); anyone who reads it can push to every app of the team: chmod 600 \(path)"
    }

    /// Signs `data` with ES256, returning the raw `r‖s` signature.
    func sign(_ data: Data) throws -> Data {
        try P256.Signing.PrivateKey(rawRepresentation: rawKey).signature(for: data).rawRepresentation
    }

    /// The key ID and team, never the key.
    public var description: String { "SigningKey(key id \(keyID), team \(teamID))" }
}

/// What is wrong with the credentials, said so a user can fix it. Never contains the key.
public enum CredentialsError: Error, Sendable, CustomStringConvertible, Equatable {
    /// A part of the key is missing: the value names it and the flag or variable that gives it.
    case missing(String)
    /// The key file at this path could not be read.
    case unreadable(String)
    /// The key cannot sign: why, and the file it came from (nil: from the environment).
    case badKey(String, file: String? = nil)
    /// Two settings that each give the key.
    case conflicting(String)
    /// A value of the wrong shape: `setting` is where it came from (a flag or an environment
    /// variable), `problem` what is wrong and how to fix it (``APNsIdentifiers``).
    case invalid(setting: String, value: String, problem: String)

    public var description: String {
        switch self {
        case .missing(let what): "missing \(what)"
        case .unreadable(let file): "cannot read the key file \(file)"
        case .badKey(let why, let file): "the APNs key\(file.map { " \($0)" } ?? "") is not usable: \(why)"
        case .conflicting(let what): what
        case .invalid(let setting, let value, let problem):
            "\(setting)\(setting.hasPrefix("-") ? " " : "=")\(value): \(problem)"
        }
    }
}
