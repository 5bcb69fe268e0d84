import Crypto
import HTTPTypes
import Testing
@testable import LivelineBridge

/// Builds header fields from name/value pairs (several pairs with one name make several lines).
func fields(_ pairs: KeyValuePairs<String, String>) -> HTTPFields {
    var fields = HTTPFields()
    for (name, value) in pairs {
        if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
    }
    return fields
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// HMAC of `message` with `key`, as text in `encoding`: the sender's side, for the tests.
func hmacText(_ message: String, key: String, encoding: SignatureEncoding, algorithm: HMACAlgorithm = .sha256) -> String
{
    hmacText(bytes(message), key: bytes(key), encoding: encoding, algorithm: algorithm)
}

func hmacText(
    _ message: [UInt8], key: [UInt8], encoding: SignatureEncoding, algorithm: HMACAlgorithm = .sha256
) -> String {
    let key = SymmetricKey(data: key)
    switch algorithm {
    case .sha1: return encoding.encode(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
    case .sha256: return encoding.encode(HMAC<SHA256>.authenticationCode(for: message, using: key))
    case .sha512: return encoding.encode(HMAC<SHA512>.authenticationCode(for: message, using: key))
    }
}

/// The error `body` throws, or nil when it returns.
func verificationError(_ body: () throws(WebhookVerificationError) -> VerifiedWebhook) -> WebhookVerificationError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
