import Crypto
import HTTPTypes

/// Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
/// `webhook-signature`, the signed content being `{id}.{timestamp}.{body}`.
///
/// The signature header is a space-separated list; one valid entry is enough, which is how a
/// sender rotates its secret without downtime. Two kinds of entry are checked:
/// - `v1,<base64>`: HMAC-SHA256 with a shared secret, given as `whsec_<base64>`;
/// - `v1a,<base64>`: an ed25519 signature, checked with a public key given as `whpk_<base64>`.
/// Entries of other versions are skipped. The timestamp must lie within the tolerance of now.
/// The verified webhook carries the id (the idempotency key the spec intends) and timestamp.
public struct StandardWebhooks: WebhookVerifier {
    private let idHeader: HTTPField.Name
    private let timestampHeader: HTTPField.Name
    private let signatureHeader: HTTPField.Name
    private let keyring: HMACKeyring?
    private let publicKeys: [CryptoKey<Curve25519.Signing.PublicKey>]
    /// How far the `webhook-timestamp` may be from now.
    public let tolerance: TimestampTolerance

    /// - Parameters:
    ///   - secrets: `whsec_`-prefixed base64 secrets (the prefix may be left out), newest first.
    ///   - publicKeys: `whpk_`-prefixed base64 ed25519 public keys, for `v1a` signatures.
    ///   - tolerance: how far the signed timestamp may be from now.
    /// - Throws: when there is neither a secret nor a key, or one does not decode.
    public init(
        secrets: [String], publicKeys: [String] = [], tolerance: TimestampTolerance = .standard
    ) throws(WebhookConfigurationError) {
        var rawSecrets: [[UInt8]] = []
        for (index, secret) in secrets.enumerated() {
            rawSecrets.append(
                try Self.decodeKey(secret, prefix: "whsec_", setting: "standard-webhooks secret \(index + 1)"))
        }
        var keys: [CryptoKey<Curve25519.Signing.PublicKey>] = []
        for (index, text) in publicKeys.enumerated() {
            let setting = "standard-webhooks public key \(index + 1)"
            let raw = try Self.decodeKey(text, prefix: "whpk_", setting: setting)
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
                throw WebhookConfigurationError("\(setting): not a 32-byte ed25519 public key")
            }
            keys.append(CryptoKey(key))
        }
        guard !rawSecrets.isEmpty || !keys.isEmpty else {
            throw WebhookConfigurationError("standard-webhooks: at least one secret or public key is needed")
        }
        self.idHeader = try .configured("webhook-id", setting: "standard-webhooks")
        self.timestampHeader = try .configured("webhook-timestamp", setting: "standard-webhooks")
        self.signatureHeader = try .configured("webhook-signature", setting: "standard-webhooks")
        self.keyring =
            rawSecrets.isEmpty
            ? nil : try HMACKeyring(algorithm: .sha256, secrets: rawSecrets, setting: "standard-webhooks")
        self.publicKeys = keys
        self.tolerance = tolerance
    }

    public func verify(
        body: some Collection<UInt8>, headers: HTTPFields, url: String, now: Int64
    ) throws(WebhookVerificationError) -> VerifiedWebhook {
        let id = try headers.required(idHeader)
        let timestampText = try headers.required(timestampHeader)
        let signatures = try headers.required(signatureHeader)
        let timestamp = try tolerance.check(timestampText[...], header: timestampHeader.rawName, now: now)

        var sawKnownVersion = false
        signatures[...].forEachItem(separatedBy: " ") { entry in
            if entry.utf8.hasCaseInsensitivePrefix("v1,") && SignatureEncoding.base64.isValid(entry.utf8.dropFirst(3))
                || entry.utf8.hasCaseInsensitivePrefix("v1a,")
                    && SignatureEncoding.base64.isValid(entry.utf8.dropFirst(4))
            {
                sawKnownVersion = true
            }
        }
        guard sawKnownVersion else {
            throw .malformedHeader(signatureHeader.rawName, expected: "space-separated v1,<base64> or v1a,<base64>")
        }

        func content(_ update: (UnsafeRawBufferPointer) -> Void) {
            SignedBytes.feed(id, to: update)
            SignedBytes.dot.withUnsafeBytes(update)
            SignedBytes.feed(timestampText, to: update)
            SignedBytes.dot.withUnsafeBytes(update)
            SignedBytes.feed(body, to: update)
        }
        if let keyring,
            let index = keyring.firstMatchingKey(
                content: content,
                accepts: { mac in
                    var matched = false
                    signatures[...].forEachItem(separatedBy: " ") { entry in
                        if entry.utf8.hasCaseInsensitivePrefix("v1,"),
                            SignatureEncoding.base64.matches(entry.utf8.dropFirst(3), mac: mac)
                        {
                            matched = true
                        }
                    }
                    return matched
                })
        {
            return VerifiedWebhook(id: id, timestamp: timestamp, keyIndex: index)
        }
        if let index = asymmetricMatch(signatures: signatures, content: content) {
            return VerifiedWebhook(id: id, timestamp: timestamp, keyIndex: index)
        }
        throw .signatureMismatch
    }

    /// The index of the first public key that a `v1a` entry verifies with; nil if none.
    private func asymmetricMatch(
        signatures: String, content: ((UnsafeRawBufferPointer) -> Void) -> Void
    ) -> Int? {
        guard !publicKeys.isEmpty else { return nil }
        var entries: [[UInt8]] = []
        signatures[...].forEachItem(separatedBy: " ") { entry in
            if entry.utf8.hasCaseInsensitivePrefix("v1a,"),
                let signature = SignatureEncoding.base64.decode(entry.utf8.dropFirst(4)), signature.count == 64
            {
                entries.append(signature)
            }
        }
        guard !entries.isEmpty else { return nil }
        // ed25519 signs the whole message at once, so here (only here) the content is joined.
        var message: [UInt8] = []
        content { message.append(contentsOf: $0) }
        for (index, key) in publicKeys.enumerated() {
            for signature in entries where key.value.isValidSignature(signature, for: message) { return index }
        }
        return nil
    }

    /// The bytes of a `whsec_`/`whpk_` value: base64, padding optional, prefix optional.
    static func decodeKey(_ text: String, prefix: String, setting: String) throws(WebhookConfigurationError) -> [UInt8]
    {
        let body = text.hasPrefix(prefix) ? text.dropFirst(prefix.count) : text[...]
        guard let bytes = SignatureEncoding.base64.decode(body.utf8), !bytes.isEmpty else {
            throw WebhookConfigurationError("\(setting): expected \(prefix) followed by base64")
        }
        return bytes
    }
}
