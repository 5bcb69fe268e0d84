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
        for (name, value) in pairs { if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) } }
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

    static let standardWebhooks = SchemeCase(
        name: "standard-webhooks v1",
        make: { try StandardWebhooks(secrets: $0.map(whsec)) },
        sign: { body, generation, timestamp in
            let id = "msg_\(timestamp)"
            let key = SignatureEncoding.base64.decode(whsec(generation).dropFirst(6).utf8) ?? []
            let signature = hmacText(bytes("\(id).\(timestamp).") + body, key: key, encoding: .base64)
            return fieldsOf([("webhook-id", id), ("webhook-timestamp", String(timestamp)), ("webhook-signature", "v1,\(signature)")])
        },
        merge: sameLine("webhook-signature", separator: " "),
        signatureHeader: "webhook-signature",
        requiredHeaders: ["webhook-id", "webhook-timestamp", "webhook-signature"],
        timestamped: true,
        malformed: "v2,c29tZXRoaW5nIGVsc2U=")

    static let standardWebhooksEd25519 = SchemeCase(
        name: "standard-webhooks v1a",
        make: { generations in
            try StandardWebhooks(secrets: [], publicKeys: generations.map {
                "whpk_" + SignatureEncoding.base64.encode(signingKey($0).publicKey.rawRepresentation)
            })
        },
        sign: { body, generation, timestamp in
            let id = "msg_\(timestamp)"
            let signature = (try? signingKey(generation).signature(for: bytes("\(id).\(timestamp).") + body)) ?? Data()
            return fieldsOf([
                ("webhook-id", id), ("webhook-timestamp", String(timestamp)),
                ("webhook-signature", "v1a,\(SignatureEncoding.base64.encode(signature))"),
            ])
        },
        merge: sameLine("webhook-signature", separator: " "),
        signatureHeader: "webhook-signature",
        requiredHeaders: ["webhook-id", "webhook-timestamp", "webhook-signature"],
        timestamped: true,
        malformed: "v1a,not*base64")

    static let stripe = SchemeCase(
        name: "stripe",
        make: { try StripeSignature(secrets: $0.map(secret)) },
        sign: { body, generation, timestamp in
            let signature = hmacText(bytes("\(timestamp).") + body, key: bytes(secret(generation)), encoding: .hex)
            return fieldsOf([("Stripe-Signature", "t=\(timestamp),v1=\(signature),v0=0123")])
        },
        merge: { good, extra in
            guard let name = HTTPField.Name("Stripe-Signature"), let value = good[name], let other = extra[name] else { return good }
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

    static let github = SchemeCase(
        name: "github",
        make: { try GitHubSignature(secrets: $0.map(secret)) },
        sign: { body, generation, _ in
            fieldsOf([("X-Hub-Signature-256", "sha256=" + hmacText(body, key: bytes(secret(generation)), encoding: .hex))])
        },
        merge: sameHeaderTwice("X-Hub-Signature-256"),
        signatureHeader: "X-Hub-Signature-256",
        requiredHeaders: ["X-Hub-Signature-256"],
        timestamped: false,
        malformed: "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")

    static let shopify = SchemeCase(
        name: "shopify",
        make: { try ShopifySignature(secrets: $0.map(secret)) },
        sign: { body, generation, _ in
            fieldsOf([("X-Shopify-Hmac-Sha256", hmacText(body, key: bytes(secret(generation)), encoding: .base64))])
        },
        merge: sameHeaderTwice("X-Shopify-Hmac-Sha256"),
        signatureHeader: "X-Shopify-Hmac-Sha256",
        requiredHeaders: ["X-Shopify-Hmac-Sha256"],
        timestamped: false,
        malformed: "not base64 at all!")

    static let square = SchemeCase(
        name: "square",
        make: { try SquareSignature(signatureKeys: $0.map(secret), notificationURL: url) },
        sign: { body, generation, _ in
            fieldsOf([("x-square-hmacsha256-signature", hmacText(bytes(url) + body, key: bytes(secret(generation)), encoding: .base64))])
        },
        merge: sameHeaderTwice("x-square-hmacsha256-signature"),
        signatureHeader: "x-square-hmacsha256-signature",
        requiredHeaders: ["x-square-hmacsha256-signature"],
        timestamped: false,
        malformed: "%%%")

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
            let signature = hmacText(bytes("\(timestamp).") + body, key: bytes(secret(generation)), encoding: .base64, algorithm: .sha512)
            return fieldsOf([("X-Timestamp", String(timestamp)), ("X-Signature", "v1=\(signature)")])
        },
        merge: sameLine("X-Signature", separator: ", "),
        signatureHeader: "X-Signature",
        requiredHeaders: ["X-Timestamp", "X-Signature"],
        timestamped: true,
        malformed: "v2=abcd")

    /// Uber Direct: `x-uber-signature`, hex HMAC-SHA256 of the body, as a generic scheme.
    static let uberDirect = SchemeCase(
        name: "generic hmac as Uber Direct's x-uber-signature",
        make: { try GenericHMAC(header: "x-uber-signature", secrets: $0.map(secret)) },
        sign: { body, generation, _ in
            fieldsOf([("x-uber-signature", hmacText(body, key: bytes(secret(generation)), encoding: .hex))])
        },
        merge: sameHeaderTwice("x-uber-signature"),
        signatureHeader: "x-uber-signature",
        requiredHeaders: ["x-uber-signature"],
        timestamped: false,
        malformed: "xyz")

    static let all = [
        standardWebhooks, standardWebhooksEd25519, stripe, github, shopify, square, genericTimestamped, uberDirect,
    ]
}
