import Foundation
import LivelineCore
import _CryptoExtras

/// A Google service account, read from the JSON key file the Firebase console downloads
/// (Project settings → Service accounts → Generate new private key).
///
/// Liveline needs its `project_id` (the FCM project), `client_email` (the assertion's issuer),
/// `private_key` (an RSA key in PEM, which signs the assertion), `private_key_id` (the
/// assertion's `kid`) and `token_uri` (where the assertion is exchanged for an access token).
public struct ServiceAccount: Sendable {
    public let projectID: String
    public let clientEmail: String
    public let privateKeyID: String?
    /// Where the assertion is exchanged for an access token, and the assertion's audience.
    public let tokenURI: String
    let privateKey: _RSA.Signing.PrivateKey

    /// Reads a service-account key file. `path` names it in errors.
    public init(contentsOf path: String) throws(ServiceAccountError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw ServiceAccountError(source: path, problem: "the file \(reason)")
        }
        try self.init(json: Array(data), source: path)
    }

    /// Reads a service account from its JSON. `source` names it in errors (a path, or
    /// `$GOOGLE_APPLICATION_CREDENTIALS`).
    public init(json: [UInt8], source: String) throws(ServiceAccountError) {
        let root: StateValue
        do {
            root = try JSONParser.parse(json)
        } catch {
            throw ServiceAccountError(source: source, problem: "it is not JSON (\(error))")
        }
        guard case .object(let fields) = root else {
            throw ServiceAccountError(source: source, problem: "expected a JSON object with the service account's keys")
        }
        func text(_ key: String, required: Bool = true) throws(ServiceAccountError) -> String? {
            switch fields[key] {
            case .string(let value)? where !value.isEmpty: return value
            case nil, .null?:
                if required { throw ServiceAccountError(source: source, problem: "it has no '\(key)'") }
                return nil
            default:
                throw ServiceAccountError(source: source, problem: "'\(key)' is not a text")
            }
        }
        let type = try text("type")
        guard type == "service_account" else {
            throw ServiceAccountError(
                source: source,
                problem:
                    "its type is '\(type ?? "")', not 'service_account'; FCM's HTTP v1 API needs a service account's key (Firebase console: Project settings → Service accounts → Generate new private key)"
            )
        }
        projectID = try text("project_id") ?? ""
        clientEmail = try text("client_email") ?? ""
        privateKeyID = try text("private_key_id", required: false)
        tokenURI = try text("token_uri") ?? ""
        guard tokenURI.hasPrefix("https://") || tokenURI.hasPrefix("http://") else {
            throw ServiceAccountError(source: source, problem: "'token_uri' is not an http(s) URL: '\(tokenURI)'")
        }
        let pem = try text("private_key") ?? ""
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw ServiceAccountError(
                source: source,
                problem:
                    "'private_key' is not an RSA private key of 2048 bits or more in PEM (\(error)); download a new key"
            )
        }
    }
}

/// A service-account key file Liveline cannot use, with what to fix.
public struct ServiceAccountError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file (or variable) it came from.
    public var source: String
    public var problem: String

    public var description: String { "service account \(source): \(problem)" }
}
