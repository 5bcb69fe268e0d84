import Crypto
import Foundation
import HTTPTypes
import Testing
@testable import LivelineBridge

/// One signing scheme as a sender uses it, for the behaviour every scheme must share: secrets
/// come in numbered generations (rotation adds a newer one), `sign` makes the headers a sender
/// would send, and `merge` puts a second signature beside the first the way that sender would.
struct SchemeCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// A verifier configured with these generations of secret, newest first.
    var make: @Sendable (_ generations: [Int]) throws -> any WebhookVerifier
    /// The headers for `body`, signed with generation `generation` at `timestamp`.
    var sign: @Sendable (_ body: [UInt8], _ generation: Int, _ timestamp: Int64) -> HTTPFields
    /// `good` with the signature of `extra` added beside it.
    var merge: @Sendable (_ good: HTTPFields, _ extra: HTTPFields) -> HTTPFields
    var signatureHeader: String
    var requiredHeaders: [String]
    var timestamped: Bool
    /// A signature header value that cannot be a signature of this scheme.
    var malformed: String

    var testDescription: String { name }

    static let url = "https://bridge.example.com/v1/webhooks/test"

    static func secret(_ generation: Int) -> String { "liveline-secret-generation-\(generation)" }

    static func whsec(_ generation: Int) -> String {
        "whsec_" + SignatureEncoding.base64.encode(SHA256.hash(data: bytes("whsec \(generation)")))
    }

    static func signingKey(_ generation: Int) -> Curve25519.Signing.PrivateKey {
        // A fixed seed per generation; never fails for 32 bytes.
        (try? Curve25519.Signing.PrivateKey(rawRepresentation: Array(SHA256.hash(data: bytes("ed25519 \(generation)")))))
            ?? Curve25519.Signing.PrivateKey()
    }

    static func fieldsOf(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return fields
    }

    /// Adds the extra's lines of `header` as more lines of the same header.
    static func sameHeaderTwice(_ header: String) -> @Sendable (HTTPFields, HTTPFields) -> HTTPFields {
        { good, extra in
            var merged = extra.filter { $0.name.rawName == header }.reduce(into: HTTPFields()) { $0.append($1) }
            for field in good { merged.append(field) }
            return merged
        }
    }

    /// Joins the two values of `header` with `separator` into one line.
    static func sameLine(_ header: String, separator: String) -> @Sendable (HTTPFields, HTTPFields) -> HTTPFields {
        { good, extra in
            guard let name = HTTPField.Name(header) else { return good }
            var merged = good
            merged[name] = [extra[name] ?? "", good[name] ?? ""].joined(separator: separator)
            return merged
        }
    }

    /// Standard Webhooks with `entry` making one signature-header entry of `{id}.{timestamp}.{body}`.
    static func standardWebhooksCase(
        _ name: String, malformed: String,
        make: @escaping @Sendable ([Int]) throws -> any WebhookVerifier,
        entry: @escaping @Sendable (_ signed: [UInt8], _ generation: Int) -> String
    ) -> SchemeCase {
        SchemeCase(
            name: name,
            make: make,
            sign: { body, generation, timestamp in
                let id = "msg_\(timestamp)"
                let signature = entry(bytes("\(id).\(timestamp).") + body, generation)
                return fieldsOf([
                    ("webhook-id", id), ("webhook-timestamp", String(timestamp)), ("webhook-signature", signature),
                ])
            },
            merge: sameLine("webhook-signature", separator: " "),
            signatureHeader: "webhook-signature",
            requiredHeaders: ["webhook-id", "webhook-timestamp", "webhook-signature"],
            timestamped: true,
            malformed: malformed)
    }

    static let standardWebhooks = standardWebhooksCase(
        "standard-webhooks v1", malformed: "v2,c29tZXRoaW5nIGVsc2U=",
        make: { try StandardWebhooks(secrets: $0.map(whsec)) },
        entry: { signed, generation in
            let key = SignatureEncoding.base64.decode(whsec(generation).dropFirst(6).utf8) ?? []
            return "v1," + hmacText(signed, key: key, encoding: .base64)
        })

    static let standardWebhooksEd25519 = standardWebhooksCase(
        "standard-webhooks v1a", malformed: "v1a,not*base64",
        make: { generations in
            try StandardWebhooks(
                secrets: [],
                publicKeys: generations.map {
                    "whpk_" + SignatureEncoding.base64.encode(signingKey($0).publicKey.rawRepresentation)
                })
        },
        entry: { signed, generation in
            let signature = (try? signingKey(generation).signature(for: signed)) ?? Data()
            return "v1a," + SignatureEncoding.base64.encode(signature)
        })

    static let stripe = SchemeCase(
        name: "stripe",
        make: { try StripeSignature(secrets: $0.map(secret)) },
        sign: { body, generation, timestamp in
            let signature = hmacText(bytes("\(timestamp).") + body, key: bytes(secret(generation)), encoding: .hex)
            return fieldsOf([("Stripe-Signature", "t=\(timestamp),v1=\(signature),v0=0123")])
        },
        merge: { good, extra in
            guard let name = HTTPField.Name("Stripe-Signature"), let value = good[name], let other = extra[name] else {
                return good
            }
            var merged = good
            // t=…,v1=<extra>,v1=<good>,v0=…
            let extraV1 = other.split(separator: ",").filter { $0.hasPrefix("v1=") }
            var items = value.split(separator: ",").map(String.init)
            items.insert(contentsOf: extraV1.map(String.init), at: 1)
            merged[name] = items.joined(separator: ",")
            return merged
        },
        signatureHeader: "Stripe-Signature",
        requiredHeaders: ["Stripe-Signature"],
        timestamped: true,
        malformed: "v1=abc,t=")

    /// A scheme with one signature header over the body (after `signedPrefix`), no timestamp.
    static func bodyHMAC(
        _ name: String, header: String, encoding: SignatureEncoding, prefix: String = "", signedPrefix: String = "",
        malformed: String, make: @escaping @Sendable ([String]) throws -> any WebhookVerifier
    ) -> SchemeCase {
        SchemeCase(
            name: name,
            make: { try make($0.map(secret)) },
            sign: { body, generation, _ in
                fieldsOf([
                    (
                        header,
                        prefix
                            + hmacText(bytes(signedPrefix) + body, key: bytes(secret(generation)), encoding: encoding)
                    )
                ])
            },
            merge: sameHeaderTwice(header),
            signatureHeader: header,
            requiredHeaders: [header],
            timestamped: false,
            malformed: malformed)
    }

    static let github = bodyHMAC(
        "github", header: "X-Hub-Signature-256", encoding: .hex, prefix: "sha256=",
        malformed: "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    ) { try GitHubSignature(secrets: $0) }

    static let shopify = bodyHMAC(
        "shopify", header: "X-Shopify-Hmac-Sha256", encoding: .base64, malformed: "not base64 at all!"
    ) {
        try ShopifySignature(secrets: $0)
    }

    static let square = bodyHMAC(
        "square", header: "x-square-hmacsha256-signature", encoding: .base64, signedPrefix: url, malformed: "%%%"
    ) { try SquareSignature(signatureKeys: $0, notificationURL: url) }

    /// Uber Direct: `x-uber-signature`, hex HMAC-SHA256 of the body, as a generic scheme.
    static let uberDirect = bodyHMAC(
        "generic hmac as Uber Direct's x-uber-signature", header: "x-uber-signature", encoding: .hex, malformed: "xyz"
    ) { try GenericHMAC(header: "x-uber-signature", secrets: $0) }

    /// A generic scheme with everything: SHA-512, base64, a prefix, a list of signatures in one
    /// value, and a signed timestamp header before the body.
    static let genericTimestamped = SchemeCase(
        name: "generic hmac (timestamp.body, sha512, base64, v1= prefix)",
        make: {
            try GenericHMAC(
                header: "X-Signature", algorithm: .sha512, encoding: .base64, prefix: "v1=", separator: ",",
                signed: [.header("X-Timestamp"), .literal("."), .body],
                timestamp: .init(header: "X-Timestamp"), secrets: $0.map(secret))
        },
        sign: { body, generation, timestamp in
            let signature = hmacText(
                bytes("\(timestamp).") + body, key: bytes(secret(generation)), encoding: .base64, algorithm: .sha512)
            return fieldsOf([("X-Timestamp", String(timestamp)), ("X-Signature", "v1=\(signature)")])
        },
        merge: sameLine("X-Signature", separator: ", "),
        signatureHeader: "X-Signature",
        requiredHeaders: ["X-Timestamp", "X-Signature"],
        timestamped: true,
        malformed: "v2=abcd")

    static let all = [
        standardWebhooks, standardWebhooksEd25519, stripe, github, shopify, square, genericTimestamped, uberDirect,
    ]
}
