import Foundation
import HTTPTypes
import Liveline
import LivelineBridge

extension FuzzTarget {
    /// Webhook verification. The input is header lines (`name: value`), a blank line, then the
    /// body. The first byte chooses the scheme; when its low bit is set the fuzzer signs the
    /// body correctly first (its headers kept), so what follows a good signature is reached.
    static let webhookVerification = FuzzTarget(
        name: "webhook-verification", summary: "every verification scheme on fuzzed headers and body, signed or not"
    ) { bytes in
        let (choice, rest) = bytes.choice(of: 2 * WebhookFixture.schemes.count)
        let (scheme, verifier) = WebhookFixture.schemes[choice / 2]
        let (headers, body) = WebhookFixture.request(rest)
        var fields = headers
        if choice % 2 == 1 {
            guard
                let signed = try? WebhookSigner(scheme: scheme).sign(
                    body: body, url: WebhookFixture.url, now: WebhookFixture.now, headers: headers)
            else { return false }
            fields = signed
        }
        return (try? verifier.verify(body: body, headers: fields, url: WebhookFixture.url, now: WebhookFixture.now))
            != nil
    }

    /// Mapping a verified webhook onto an activity's story with each source of
    /// `Scenarios/bridge.example.yaml` (read from the repository, as run from its root):
    /// JSON Pointers, event types, order keys, dates, templates.
    static let webhookMapping = FuzzTarget(
        name: "webhook-mapping", summary: "each example source's mapping on fuzzed headers and body"
    ) { bytes in
        let sources = WebhookFixture.exampleSources
        guard !sources.isEmpty else { return false }
        let (choice, rest) = bytes.choice(of: sources.count)
        let (headers, body) = WebhookFixture.request(rest)
        return (try? EventMapper(source: sources[choice]).map(body: body, headers: headers)) != nil
    }

    /// The bridge's configuration file, written as if beside `Scenarios/delivery.yaml`.
    static let bridgeConfiguration = FuzzTarget(
        name: "bridge-configuration", summary: "bridge configuration YAML, loaded and checked"
    ) { bytes in
        (try? BridgeConfigurationLoader(environment: WebhookFixture.environment)
            .load(yaml: bytes.text, file: "Scenarios/fuzz-bridge.yaml")) != nil
    }
}

/// The schemes, secrets and example configuration the webhook targets share.
enum WebhookFixture {
    static let url = "https://bridge.example.com/webhooks/orders"
    static let now: Int64 = 1_795_464_000

    static let environment = [
        "DOORDASH_WEBHOOK_AUTH": "Bearer dd-fuzz",
        "UBER_SIGNING_KEY": "uber-fuzz",
        "ORDERS_WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    ]

    static let schemes: [(VerificationScheme, any WebhookVerifier)] = {
        let all: [VerificationScheme] = [
            .standardWebhooks(secrets: [
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_c2Vjb25kLXNlY3JldC1mb3ItZnV6eg==",
            ]),
            .stripe(secrets: ["whsec_stripe_fuzz"]),
            .github(secrets: ["gh-fuzz"]),
            .shopify(secrets: ["shopify-fuzz"]),
            .square(signatureKeys: ["square-fuzz"], notificationURL: url),
            .hmac(GenericHMACConfiguration(header: "x-uber-signature", secrets: ["uber-fuzz"])),
            .hmac(
                GenericHMACConfiguration(
                    header: "x-signature", encoding: .base64, prefix: "sha256=",
                    signed: [.header("x-timestamp"), .literal("."), .body],
                    timestamp: GenericHMAC.Timestamp(header: "x-timestamp"), secrets: ["a", "b"])),
            .bearer(tokens: ["dd-fuzz"]),
            .basic(credentials: [BasicCredential(user: "fuzz", password: "pw")]),
            .none,
        ]
        return all.compactMap { scheme in (try? scheme.makeVerifier()).map { (scheme, $0) } }
    }()

    /// The example's sources. A run that cannot load them stops at once (exit 2) rather than
    /// fuzzing nothing: the file is read at run time, so a binary older than the file fails here.
    static let exampleSources: [SourceConfiguration] = {
        do {
            return try BridgeConfigurationLoader(environment: environment).load(file: "Scenarios/bridge.example.yaml")
                .sources
        } catch {
            FileHandle.standardError.write(
                Data(
                    "liveline-fuzz: Scenarios/bridge.example.yaml does not load (run from the repository's root, with a binary built from the same commit): \(error)\n"
                        .utf8))
            exit(2)
        }
    }()

    /// Header lines, a blank line, the body; a line without a valid name is skipped.
    static func request(_ bytes: UnsafeRawBufferPointer) -> (HTTPFields, [UInt8]) {
        let all = Array(bytes)
        var split = all.count
        for i in 0..<max(0, all.count - 1) where all[i] == 10 && all[i + 1] == 10 {
            split = i
            break
        }
        var fields = HTTPFields()
        for line in String(decoding: all[..<split], as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else {
                continue
            }
            fields.append(
                HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return (fields, split + 2 <= all.count ? Array(all[(split + 2)...]) : [])
    }
}
