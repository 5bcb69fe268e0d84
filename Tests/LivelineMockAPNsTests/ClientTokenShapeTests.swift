import Foundation
import Liveline
import LivelineMockAPNs
import Testing

/// How one APNs client writes its provider token, byte for byte.
///
/// The templates are filled by ``fillToken(_:key:iat:)``. `confidence` says where each shape comes from.
struct ClientTokenShape: Sendable, CustomTestStringConvertible {
    var client: String
    var header: String
    var claims: String
    var signature: TestKey.SignatureEncoding = .raw
    /// The warnings the mock should report, with the same placeholders.
    var warnings: [String] = []
    var confidence: String

    var testDescription: String { client }

    func token(_ key: TestKey, iat: Int64) -> String {
        key.token(
            header: fillToken(header, key: key, iat: iat), claims: fillToken(claims, key: key, iat: iat),
            signature: signature)
    }
}

/// Fills a token template: `{kid}`, `{iss}`, `{iat}`, and `{old}` (an `iat` just over an hour back).
func fillToken(_ template: String, key: TestKey, iat: Int64) -> String {
    template.replacingOccurrences(of: "{kid}", with: key.keyID)
        .replacingOccurrences(of: "{iss}", with: key.teamID)
        .replacingOccurrences(of: "{iat}", with: String(iat))
        .replacingOccurrences(of: "{old}", with: String(iat - 3601))
}

enum ClientTokenShapes {
    static let kidInClaims = #"provider token: the claims have "kid"; Apple's have only iss and iat"#
    static let bothPretty =
        "provider token: the header and claims are pretty-printed JSON; APNs verifies it as sent, but compact JSON is usual"
    static let iatString = #"provider token: iat is a string ("{iat}"); RFC 7519 wants a number"#

    /// The template APNSwift 5.x and 6.x fill in (`APNSAuthenticationTokenManager`): Swift
    /// multi-line string literals, so four-space indents, newlines and no trailing newline.
    static let apnswiftHeader = "{\n    \"alg\": \"ES256\",\n    \"typ\": \"JWT\",\n    \"kid\": \"{kid}\"\n}"

    static let apnswift5 = ClientTokenShape(
        client: "APNSwift 5.x-6.x (string iat)",
        header: apnswiftHeader,
        claims: "{\n    \"iss\": \"{iss}\",\n    \"iat\": \"{iat}\",\n    \"kid\": \"{kid}\"\n}",
        warnings: [iatString, kidInClaims, bothPretty],
        confidence: "high: the template in APNSAuthenticationTokenManager's source")

    static let all: [ClientTokenShape] = [
        ClientTokenShape(
            client: "Apple's documented token (and Liveline's)",
            header: #"{"alg":"ES256","kid":"{kid}"}"#, claims: #"{"iss":"{iss}","iat":{iat}}"#,
            confidence: "high: docs/apns.md §3"),
        ClientTokenShape(
            client: "APNSwift 1.x (APNSwiftJWT, JSONEncoder)",
            header: #"{"alg":"ES256","kid":"{kid}"}"#, claims: #"{"iss":"{iss}","iat":{iat}}"#,
            confidence: "high: from its source; Darwin's old JSONEncoder could order keys differently"),
        ClientTokenShape(
            client: "APNSwift 2.x-4.x (JWTKit)",
            header: #"{"alg":"ES256","typ":"JWT","kid":"{kid}"}"#,
            claims: #"{"iss":"{iss}","iat":{iat},"kid":"{kid}"}"#,
            warnings: [kidInClaims],
            confidence: "medium: claims from APNSwiftJWTPayload's source, header as JWTKit writes it from memory"),
        apnswift5,
        ClientTokenShape(
            client: "APNSwift after the iat fix (numeric iat)",
            header: apnswiftHeader,
            claims: "{\n    \"iss\": \"{iss}\",\n    \"iat\": {iat},\n    \"kid\": \"{kid}\"\n}",
            warnings: [kidInClaims, bothPretty],
            confidence: "low: assumed to keep the 5.x template with the quotes dropped; not seen in source"),
        ClientTokenShape(
            client: "Pushy (Java, Gson, SHA256withECDSA)",
            header: #"{"alg":"ES256","typ":"JWT","kid":"{kid}"}"#, claims: #"{"iss":"{iss}","iat":{iat}}"#,
            signature: .der,
            warnings: [
                "provider token: signature is DER-encoded ({der} bytes); RFC 7518 §3.4 wants raw r‖s (64 bytes)"
            ],
            confidence: "high: AuthenticationToken and ApnsKey sources; DER because Java's SHA256withECDSA writes DER"),
        ClientTokenShape(
            client: "node-apn (jsonwebtoken)",
            header: #"{"alg":"ES256","typ":"JWT","kid":"{kid}"}"#, claims: #"{"iat":{iat},"iss":"{iss}"}"#,
            confidence: "high: sign({}, key, {algorithm, issuer, header: {kid}}); key order as jsonwebtoken builds it"),
        ClientTokenShape(
            client: "sideshow/apns2 (Go, golang-jwt)",
            header: #"{"alg":"ES256","kid":"{kid}"}"#, claims: #"{"iat":{iat},"iss":"{iss}"}"#,
            confidence: "high: token.go sets the header map itself (no typ); encoding/json sorts map keys"),
        ClientTokenShape(
            client: "PyAPNs2 (PyJWT 1.x, iat = time.time())",
            header: #"{"typ":"JWT","alg":"ES256","kid":"{kid}"}"#, claims: #"{"iss":"{iss}","iat":{iat}.040598}"#,
            warnings: ["provider token: iat is not an integer ({iat}.040598); Apple documents whole seconds"],
            confidence:
                "high: credentials.py passes time.time(); bytes checked against PyJWT 1.7.1, the 1.x PyAPNs2 needs"),
        ClientTokenShape(
            client: "aioapns (PyJWT 2.x)",
            header: #"{"alg":"ES256","kid":"{kid}","typ":"JWT"}"#, claims: #"{"iss":"{iss}","iat":{iat}}"#,
            confidence: "high: connection.py's jwt.encode call; bytes checked against PyJWT 2.15"),
    ]
}

@Suite("Provider tokens as real clients write them")
struct ClientTokenShapeTests {
    let key = TestKey()

    /// Runs `body` against a mock that accepts ``key``, with its clock and the current `iat`.
    func withMock(_ body: (MockAPNsServer, ManualClock, Int64) async throws -> Void) async throws {
        let clock = ManualClock(start: Harness.epoch)
        let providerKey = key.providerKey
        let server = try await Harness.start(clock: clock) { $0.authentication = .keys([providerKey]) }
        do {
            try await body(server, clock, Harness.seconds(clock.now()))
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// Sends one push with `jwt` on a new connection.
    func push(_ server: MockAPNsServer, jwt: String, timestamp: Int64) async throws -> RawResponse {
        let client = try await Harness.connect(server)
        let response = try await client.request(
            path: "/3/device/\(Harness.token)", headers: Harness.headers(jwt: jwt),
            body: Harness.payload(timestamp: timestamp))
        await client.close()
        return response
    }

    @Test("each client's token is accepted, with the warnings its shape deserves", arguments: ClientTokenShapes.all)
    func clientTokenIsAccepted(_ shape: ClientTokenShape) async throws {
        try await withMock { server, _, iat in
            let jwt = shape.token(key, iat: iat)
            let response = try await push(server, jwt: jwt, timestamp: iat)
            #expect(response.status == 200, "\(response.reason ?? "")")
            let signatureLength = try #require(Data(base64URLEncoded: jwt.split(separator: ".")[2])).count
            let expected = shape.warnings.map {
                fillToken($0, key: key, iat: iat).replacingOccurrences(of: "{der}", with: String(signatureLength))
            }
            let record = try #require(server.pushes(token: Harness.token).last)
            #expect(record.warnings == expected)
        }
    }

    @Test("warnings stay with the connection's token on later pushes, and reach the live event stream")
    func warningsFollowTheToken() async throws {
        try await withMock { server, _, iat in
            let events = server.events()
            let client = try await Harness.connect(server)
            let jwt = ClientTokenShapes.apnswift5.token(key, iat: iat)
            for timestamp in [iat, iat + 1] {
                let response = try await client.request(
                    path: "/3/device/\(Harness.token)", headers: Harness.headers(jwt: jwt),
                    body: Harness.payload(timestamp: timestamp))
                #expect(response.status == 200)
            }
            await client.close()
            #expect(server.pushes(token: Harness.token).map(\.warnings.count) == [3, 3])
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next()?.warnings.first == fillToken(ClientTokenShapes.iatString, key: key, iat: iat))
        }
    }

    @Test("the inspection JSON has warnings when there are some and leaves the key out otherwise")
    func inspectionJSONCarriesWarnings() async throws {
        try await withMock { server, clock, iat in
            #expect(try await push(server, jwt: key.token(issuedAt: iat), timestamp: iat).status == 200)
            clock.advance(by: .milliseconds(1000))
            #expect(
                try await push(server, jwt: ClientTokenShapes.apnswift5.token(key, iat: iat), timestamp: iat + 1).status
                    == 200)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let records = server.pushes(token: Harness.token)
            #expect(records.count == 2)
            let plain = String(decoding: try encoder.encode(records[0]), as: UTF8.self)
            let warned = String(decoding: try encoder.encode(records[1]), as: UTF8.self)
            #expect(!plain.contains("warnings"))
            #expect(warned.contains(#""warnings":["provider token: iat is a string"#))
            let decoded = try JSONDecoder().decode(AnsweredPush.self, from: Data(warned.utf8))
            #expect(decoded == records[1])
        }
    }

    @Test("the signature is checked over the header and claims bytes as received, whitespace and all")
    func signatureCoversTheBytesAsReceived() async throws {
        try await withMock { server, _, iat in
            let prettyHeader = "{\n  \"alg\": \"ES256\",\n  \"kid\": \"\(key.keyID)\"\n}"
            let compactHeader = #"{"alg":"ES256","kid":"\#(key.keyID)"}"#
            let claims = #"{"iss":"\#(key.teamID)","iat":\#(iat)}"#
            let signedPretty = key.token(header: prettyHeader, claims: claims)
            #expect(try await push(server, jwt: signedPretty, timestamp: iat).status == 200)

            // The same header and claims, but the signature made over the compact form: a verifier
            // that re-encodes the JSON before checking would wrongly accept it.
            let compactSignature = key.signature(for: key.signingInput(header: compactHeader, claims: claims))
            let forged = key.signingInput(header: prettyHeader, claims: claims) + "." + base64URL(compactSignature)
            let response = try await push(server, jwt: forged, timestamp: iat)
            #expect(response.status == 403)
            #expect(response.reason == "InvalidProviderToken")
        }
    }

    /// A token APNs refuses, and the reason it gives.
    struct Refused: Sendable, CustomTestStringConvertible {
        var name: String
        var header: String = #"{"alg":"ES256","kid":"{kid}"}"#
        var claims: String = #"{"iss":"{iss}","iat":{iat}}"#
        var signature: TestKey.SignatureEncoding = .raw
        /// Changes the finished token (to break its signature).
        var tamper: @Sendable (String) -> String = { $0 }
        var reason = "InvalidProviderToken"

        var testDescription: String { name }
    }

    static let refused: [Refused] = [
        Refused(name: "alg HS256", header: #"{"alg":"HS256","kid":"{kid}"}"#),
        Refused(name: "alg none", header: #"{"alg":"none","kid":"{kid}"}"#),
        Refused(name: "no alg", header: #"{"kid":"{kid}"}"#),
        Refused(name: "no kid", header: #"{"alg":"ES256","typ":"JWT"}"#),
        Refused(name: "unknown kid", header: #"{"alg":"ES256","kid":"ZZZ999ZZZZ"}"#),
        Refused(
            name: "kid only in the claims", header: #"{"alg":"ES256"}"#,
            claims: #"{"iss":"{iss}","iat":{iat},"kid":"{kid}"}"#),
        Refused(name: "no iss", claims: #"{"iat":{iat}}"#),
        Refused(name: "iss of another team", claims: #"{"iss":"OTHERTEAM1","iat":{iat}}"#),
        Refused(name: "no iat", claims: #"{"iss":"{iss}"}"#),
        Refused(name: "iat a word", claims: #"{"iss":"{iss}","iat":"soon"}"#),
        Refused(name: "iat digits and letters", claims: #"{"iss":"{iss}","iat":"{iat}abc"}"#),
        Refused(name: "iat an empty string", claims: #"{"iss":"{iss}","iat":""}"#),
        Refused(name: "iat a boolean", claims: #"{"iss":"{iss}","iat":true}"#),
        Refused(name: "iat null", claims: #"{"iss":"{iss}","iat":null}"#),
        Refused(name: "iat too large", claims: #"{"iss":"{iss}","iat":1e300}"#),
        Refused(name: "claims not an object", claims: #"["{iss}",{iat}]"#),
        Refused(
            name: "string iat older than an hour", claims: #"{"iss":"{iss}","iat":"{old}"}"#,
            reason: "ExpiredProviderToken"),
        Refused(
            name: "pretty-printed token older than an hour",
            claims: "{\n    \"iss\": \"{iss}\",\n    \"iat\": {old}\n}", reason: "ExpiredProviderToken"),
        Refused(name: "raw signature with a flipped bit", tamper: { flipLastSignatureByte($0) }),
        Refused(name: "DER signature with a flipped bit", signature: .der, tamper: { flipLastSignatureByte($0) }),
        Refused(
            name: "signature cut to 63 bytes", tamper: { replaceSignature($0, with: Data(repeating: 1, count: 63)) }),
        Refused(
            name: "DER-looking garbage",
            tamper: { replaceSignature($0, with: Data([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01])) }),
        Refused(name: "no signature", tamper: { replaceSignature($0, with: Data()) }),
    ]

    @Test("what APNs refuses, the mock refuses too", arguments: refused)
    func refusedTokens(_ refusal: Refused) async throws {
        try await withMock { server, _, iat in
            let token = key.token(
                header: fillToken(refusal.header, key: key, iat: iat),
                claims: fillToken(refusal.claims, key: key, iat: iat),
                signature: refusal.signature)
            let response = try await push(server, jwt: refusal.tamper(token), timestamp: iat)
            #expect(response.status == 403)
            #expect(response.reason == refusal.reason)
        }
    }
}

/// The token with the last byte of its signature changed.
private func flipLastSignatureByte(_ jwt: String) -> String {
    guard var signature = Data(base64URLEncoded: jwt.split(separator: ".")[2]), !signature.isEmpty else { return jwt }
    signature[signature.count - 1] ^= 0x01
    return replaceSignature(jwt, with: signature)
}

/// The token with another signature segment.
private func replaceSignature(_ jwt: String, with signature: Data) -> String {
    jwt.split(separator: ".").prefix(2).joined(separator: ".") + "." + base64URL(signature)
}

extension Data {
    /// Decodes base64url without padding.
    init?(base64URLEncoded text: some StringProtocol) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
