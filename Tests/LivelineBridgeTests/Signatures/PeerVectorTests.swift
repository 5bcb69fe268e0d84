import Foundation
import HTTPTypes
import Testing
@testable import LivelineBridge

/// Signatures made by the senders' own libraries (Tests/LivelineBridgeTests/Fixtures/signature-vectors.py wrote them into
/// Fixtures/signature-vectors.json with `standardwebhooks`, `stripe`, `cryptography`'s Ed25519
/// and Python's `hmac`), accepted here byte for byte.
@Suite struct PeerVectorTests {
    struct Vectors: Decodable {
        struct Standard: Decodable {
            var bodyBase64: String; var secrets: [String]; var id: String; var timestamp: Int64;
            var signatures: [String]
        }
        struct Ed25519: Decodable {
            var bodyBase64: String; var publicKey: String; var id: String; var timestamp: Int64; var signature: String
        }
        struct Stripe: Decodable {
            var bodyBase64: String; var secrets: [String]; var timestamp: Int64; var header: String
        }
        struct Plain: Decodable { var bodyBase64: String; var secret: String; var header: String }
        struct Square: Decodable { var bodyBase64: String; var key: String; var url: String; var header: String }
        struct Generic: Decodable {
            var name: String
            var bodyBase64: String
            var header: String
            var algorithm: String
            var encoding: String
            var prefix: String
            var parts: [[String: JSONScalar]]
            var secret: String
            var signature: String
            var timestampHeader: String?
            var timestamp: Int64?
            var url: String?
        }

        var standardWebhooks: [Standard]
        var standardWebhooksEd25519: [Ed25519]
        var stripe: [Stripe]
        var github: [Plain]
        var shopify: [Plain]
        var square: [Square]
        var generic: [Generic]
    }

    /// A part's value: `true` for body/url, text for header/literal.
    enum JSONScalar: Decodable {
        case flag(Bool)
        case text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        var text: String? { if case .text(let text) = self { text } else { nil } }
    }

    static let vectors: Vectors? = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/signature-vectors.json")
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(Vectors.self, from: data)
    }()

    static func body(_ base64: String) -> [UInt8] { Data(base64Encoded: base64).map { Array($0) } ?? [0xFF] }

    @Test func theFixtureIsThere() throws {
        let vectors = try #require(Self.vectors)
        #expect(
            !vectors.standardWebhooks.isEmpty && !vectors.standardWebhooksEd25519.isEmpty && !vectors.stripe.isEmpty)
        #expect(vectors.generic.contains { $0.name == "uber-direct" })
    }

    @Test func standardWebhooksFromTheOfficialPackage() throws {
        for vector in try #require(Self.vectors).standardWebhooks {
            let body = Self.body(vector.bodyBase64)
            // Both signatures in one header, as the sender sends them while rotating.
            let both = fields([
                "webhook-id": vector.id, "webhook-timestamp": String(vector.timestamp),
                "webhook-signature": vector.signatures.joined(separator: " "),
            ])
            let verified = try StandardWebhooks(secrets: vector.secrets).verify(
                body: body, headers: both, now: vector.timestamp)
            #expect(verified == VerifiedWebhook(id: vector.id, timestamp: vector.timestamp, keyIndex: 0))
            // Each secret alone accepts the header; each signature alone matches its own secret.
            for (index, secret) in vector.secrets.enumerated() {
                let verifier = try StandardWebhooks(secrets: [secret])
                #expect(try verifier.verify(body: body, headers: both, now: vector.timestamp).keyIndex == 0)
                var alone = both
                alone[HTTPField.Name("webhook-signature")!] = vector.signatures[index]
                #expect(try verifier.verify(body: body, headers: alone, now: vector.timestamp).id == vector.id)
            }
        }
    }

    @Test func standardWebhooksEd25519FromCryptography() throws {
        for vector in try #require(Self.vectors).standardWebhooksEd25519 {
            let headers = fields([
                "webhook-id": vector.id, "webhook-timestamp": String(vector.timestamp),
                "webhook-signature": vector.signature,
            ])
            let verifier = try StandardWebhooks(secrets: [], publicKeys: [vector.publicKey])
            let verified = try verifier.verify(
                body: Self.body(vector.bodyBase64), headers: headers, now: vector.timestamp)
            #expect(verified == VerifiedWebhook(id: vector.id, timestamp: vector.timestamp, keyIndex: 0))
        }
    }

    @Test func stripeFromTheStripePackage() throws {
        for vector in try #require(Self.vectors).stripe {
            let headers = fields(["Stripe-Signature": vector.header])
            for secret in vector.secrets {
                let verified = try StripeSignature(secrets: [secret])
                    .verify(body: Self.body(vector.bodyBase64), headers: headers, now: vector.timestamp)
                #expect(verified == VerifiedWebhook(timestamp: vector.timestamp, keyIndex: 0))
            }
        }
    }

    @Test func gitHubShopifyAndSquareFromPythonHMAC() throws {
        let vectors = try #require(Self.vectors)
        for vector in vectors.github {
            let headers = fields(["X-Hub-Signature-256": vector.header])
            _ = try GitHubSignature(secrets: [vector.secret]).verify(
                body: Self.body(vector.bodyBase64), headers: headers, now: 0)
        }
        for vector in vectors.shopify {
            let headers = fields(["X-Shopify-Hmac-Sha256": vector.header])
            _ = try ShopifySignature(secrets: [vector.secret]).verify(
                body: Self.body(vector.bodyBase64), headers: headers, now: 0)
        }
        for vector in vectors.square {
            let headers = fields(["x-square-hmacsha256-signature": vector.header])
            _ = try SquareSignature(signatureKeys: [vector.key], notificationURL: vector.url)
                .verify(body: Self.body(vector.bodyBase64), headers: headers, now: 0)
        }
    }

    @Test func genericHMACFromPythonHMAC() throws {
        for vector in try #require(Self.vectors).generic {
            let parts: [GenericHMAC.Part] = try vector.parts.map { part in
                if let name = part["header"]?.text { return .header(name) }
                if let text = part["literal"]?.text { return .literal(text) }
                if part["url"] != nil { return .url }
                try #require(part["body"] != nil, "unknown part in \(vector.name)")
                return .body
            }
            let verifier = try GenericHMAC(
                header: vector.header,
                algorithm: try #require(HMACAlgorithm(rawValue: vector.algorithm)),
                encoding: try #require(SignatureEncoding(rawValue: vector.encoding)),
                prefix: vector.prefix,
                signed: parts,
                timestamp: vector.timestampHeader.map { GenericHMAC.Timestamp(header: $0) },
                secrets: [vector.secret])
            var headers = fields([vector.header: vector.signature])
            if let name = vector.timestampHeader, let timestamp = vector.timestamp {
                headers.append(HTTPField(name: try #require(HTTPField.Name(name)), value: String(timestamp)))
            }
            let verified = try verifier.verify(
                body: Self.body(vector.bodyBase64), headers: headers, url: vector.url ?? "", now: vector.timestamp ?? 0)
            #expect(verified.keyIndex == 0, "\(vector.name)")
            #expect(verified.timestamp == vector.timestamp, "\(vector.name)")
        }
    }
}
