import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// Realistic mistakes in a bridge configuration, each reported at its exact place with what
/// was expected.
@Suite struct ConfigurationErrorTests {
    /// A configuration that loads; each test changes one line of it.
    static let valid = """
        liveline-bridge: 1
        listen: 127.0.0.1:8080
        sources:
          shop:
            verify: github
            secrets: [s3cret]
            event-type: /type
            activity-key: /order
            scenario: delivery.yaml
            events:
              note:
                trigger: courier-note
              eta:
                set: { eta: /eta }
        """

    /// `valid` with `old` replaced by `new` (which must be there).
    static func changed(_ old: String, _ new: String) -> String { replacing(old, with: new, in: valid) }

    func expectError(
        _ yaml: String, _ line: Int, _ column: Int, _ message: String, environment: [String: String] = [:],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        expectConfigurationError(yaml, line, column, message, environment: environment, sourceLocation: sourceLocation)
    }

    @Test func theBaseLoads() {
        #expect(configurationErrors(Self.valid).isEmpty)
    }

    @Test func noSourcesAtAllSaysWhatOneNeeds() {
        let empty = "liveline-bridge: 1\nlisten: 127.0.0.1:8080\nsources: {}\n"
        expectError(
            empty, 3, 10,
            "expected at least one source under sources (a name, then its verify:, scenario: and events:)")
        expectError(
            "liveline-bridge: 1\nlisten: 127.0.0.1:8080\nsources: [shop]\n", 3, 10,
            "expected sources as a mapping of source names to sources, found a list")
    }

    @Test func anUnknownKeyGetsADidYouMean() {
        expectError(
            Self.changed("listen:", "listne:"), 2, 1,
            "unknown key 'listne' in the bridge configuration; did you mean 'listen'?")
        expectError(
            Self.changed("    activity-key:", "    activity-kye:"), 8, 5,
            "unknown key 'activity-kye' in source 'shop'; did you mean 'activity-key'?")
    }

    /// `store: env:NAME` takes the store from the environment (a Secret's PostgreSQL URL), and
    /// says which variable is missing when it is not set.
    @Test func aStoreFromTheEnvironment() throws {
        let yaml = Self.changed("listen: 127.0.0.1:8080", "listen: 127.0.0.1:8080\nstore: env:LIVELINE_BRIDGE_STORE")
        let url = "postgres://liveline:s3cret@db.internal:5432/liveline"
        let configuration = try BridgeConfigurationLoader(environment: ["LIVELINE_BRIDGE_STORE": url]).load(
            yaml: yaml, file: testConfigurationFile)
        #expect(configuration.store == (try StoreLocation(parsing: url)))
        expectError(
            yaml, 3, 8,
            "store reads the environment variable LIVELINE_BRIDGE_STORE, which is not set (set it to sqlite:PATH or a postgres:// URL)"
        )
    }

    /// A drain longer than the orchestrator waits would be cut by its kill; retention shorter
    /// than a minute would delete what `bridge record` was asked to keep.
    @Test func drainTimeoutAndRetentionAreReadAndChecked() throws {
        let yaml = Self.changed(
            "listen: 127.0.0.1:8080",
            "listen: 127.0.0.1:8080\ndrain-timeout: 20s\nretention: { events: 3d, dead-letters: forever }")
        let configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: yaml, file: testConfigurationFile)
        #expect(configuration.drainTimeout == .seconds(20))
        #expect(configuration.retention.events == .seconds(3 * 86_400) && configuration.retention.deadLetters == nil)
        let defaults = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: Self.valid, file: testConfigurationFile)
        #expect(defaults.drainTimeout == .seconds(10) && defaults.retention == .standard)

        expectError(
            Self.changed("listen: 127.0.0.1:8080", "listen: 127.0.0.1:8080\ndrain-timeout: 5m"), 3, 16,
            "expected drain-timeout from 1s to 2m (under the orchestrator's grace period, 30 s in Kubernetes), found '5m'"
        )
        expectError(
            Self.changed("listen: 127.0.0.1:8080", "listen: 127.0.0.1:8080\nretention: { events: 30s }"), 3, 22,
            "expected retention.events as a period of at least 1m, like 7d, 36h or 30m, or forever, found '30s'"
        )
        let batches = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: Self.changed(
                "listen: 127.0.0.1:8080", "listen: 127.0.0.1:8080\nretention: { batch: 200, batch-time: 2ms }"),
            file: testConfigurationFile
        )
        #expect(batches.retention.batch == 200 && batches.retention.batchTime == .milliseconds(2))
        let micros = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: Self.changed("listen: 127.0.0.1:8080", "listen: 127.0.0.1:8080\nretention: { batch-time: 250us }"),
            file: testConfigurationFile
        )
        #expect(micros.retention.batchTime == .microseconds(250))
        for refused in ["5s", "50us", "2.5ms", "us"] {
            expectError(
                Self.changed("listen: 127.0.0.1:8080", "listen: 127.0.0.1:8080\nretention: { batch-time: \(refused) }"),
                3, 26,
                "expected retention.batch-time as a duration from 100us to 1s, like 500us or 2ms, found '\(refused)'"
            )
        }
        expectError(
            Self.changed("listen: 127.0.0.1:8080", "listen: 127.0.0.1:8080\nretention: { batch: 0 }"), 3, 21,
            "expected retention.batch as a number of rows from 1 to 100000, found '0'"
        )
    }

    @Test func aMisspeltSecretsKeyIsReportedOnce() {
        let found = configurationErrors(Self.changed("secrets:", "secret:"))
        #expect(found.map(\.message) == ["unknown key 'secret' in source 'shop'; did you mean 'secrets'?"])
    }

    /// A triggered beat needs an id: the scenario's own error is reported where it is, after
    /// the line of the configuration that names the scenario.
    @Test func aScenarioWhoseBeatHasNoID() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-bridge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scenario = """
            liveline: 1
            activities:
              - name: order
                attributes-type: DeliveryAttributes
                attributes: { orderNumber: 1 }
                content-state: { status: placed }
                beats:
                  - set: { status: ready }
                  - id: done
                    at: 1m
                    end: {}
            """
        try scenario.write(to: directory.appendingPathComponent("broken.yaml"), atomically: true, encoding: .utf8)
        let file = directory.appendingPathComponent("bridge.yaml").path
        let yaml = Self.changed("delivery.yaml", "broken.yaml")
        var found: [Diagnostic] = []
        do {
            _ = try BridgeConfigurationLoader(environment: [:]).load(yaml: yaml, file: file)
        } catch {
            found = error.errors
        }
        #expect(
            found.first
                == Diagnostic(
                    .error, Liveline.SourceLocation(file: file, line: 9, column: 15),
                    "the scenario 'broken.yaml' does not load (1 error, below)"))
        #expect(
            found.dropFirst().first
                == Diagnostic(
                    .error,
                    Liveline.SourceLocation(
                        file: directory.appendingPathComponent("broken.yaml").path, line: 8, column: 9),
                    "a beat needs 'at' (it happens once), 'every' (it repeats) or an 'id' (the bridge triggers it)"))
    }

    @Test func aSecretFromAnUnsetVariable() {
        expectError(
            Self.changed("[s3cret]", "[env:SHOP_SECRET]"), 6, 15,
            "the environment variable SHOP_SECRET is not set (a secret of source 'shop')")
        #expect(
            configurationErrors(Self.changed("[s3cret]", "[env:SHOP_SECRET]"), environment: ["SHOP_SECRET": "x"])
                .isEmpty)
    }

    @Test func noSecretsAtAll() {
        expectError(
            Self.changed("    secrets: [s3cret]\n", ""), 5, 5,
            "source 'shop' is missing 'secrets' (the shared secrets of github, newest first; env:NAME reads one from the environment)"
        )
    }

    @Test func noVerificationOnAPublicAddress() {
        let yaml = Self.changed("127.0.0.1:8080", "0.0.0.0:8080").replacingOccurrences(
            of: "verify: github\n    secrets: [s3cret]", with: "verify: none")
        expectError(
            yaml, 5, 13,
            "verify: none accepts any request, so it is allowed only when listen is a loopback address (127.0.0.1, ::1, localhost), not 0.0.0.0"
        )
        #expect(configurationErrors(Self.changed("verify: github\n    secrets: [s3cret]", "verify: none")).isEmpty)
    }

    @Test func aBeatThatDoesNotExist() {
        expectError(
            Self.changed("trigger: courier-note", "trigger: courier-notes"), 12, 18,
            "activity 'order-58213' of \(scenariosDirectory)/delivery.yaml has no beat with id 'courier-notes'; did you mean 'courier-note'?"
        )
    }

    @Test func aFieldTheContentStateDoesNotHave() {
        expectError(
            Self.changed("{ eta: /eta }", "{ etaa: /eta }"), 14, 16,
            "activity 'order-58213' has no content-state field 'etaa'; did you mean 'eta'?")
        expectError(
            Self.changed("{ eta: /eta }", "{ minutesLeft: soon }"), 14, 29,
            "'minutesLeft' is an integer in the content-state, not a string: the app would fail to decode it")
    }

    @Test func aBadPointer() {
        expectError(
            Self.changed("activity-key: /order", "activity-key: order"), 8, 19,
            "expected activity-key as a JSON Pointer into the body (like /data/id) or header:Name; 'order' is not a JSON Pointer: a JSON Pointer starts with '/', like /data/id"
        )
        expectError(
            Self.changed("event-type: /type", "event-type: /a~2b"), 7, 17,
            "expected event-type as a JSON Pointer into the body (like /data/id) or header:Name; '/a~2b' is not a JSON Pointer: '~' must be followed by 0 (for ~) or 1 (for /)"
        )
    }

    @Test func aBadDuration() {
        expectError(
            Self.changed("    secrets: [s3cret]\n", "    secrets: [s3cret]\n    tolerance: 5 minutes\n"), 7, 16,
            "expected tolerance as a duration like 90s, 23m, 1h05m10s or 250ms, found '5 minutes'")
    }

    @Test func anUnknownScheme() {
        expectError(
            Self.changed("verify: github", "verify: githb"), 5, 13,
            "unknown verification scheme 'githb'; did you mean 'github'?")
    }

    @Test func aMissingScenarioFile() {
        expectError(
            Self.changed("scenario: delivery.yaml", "scenario: deliveries.yaml"), 9, 15,
            "the scenario file 'deliveries.yaml' does not exist (looked for \(scenariosDirectory)/deliveries.yaml)")
    }

    @Test func statusRankWithoutStatuses() {
        expectError(
            Self.changed("    scenario:", "    order-key: /status\n    order: status-rank\n    scenario:"), 10, 12,
            "order: status-rank needs 'statuses', the statuses from first to last")
    }

    @Test func aKeyInsteadOfItsHash() {
        expectError(
            Self.changed("sources:", "api-keys: [my-secret-key]\nsources:"), 3, 12,
            "expected an API key as sha256:<64 hex digits>, the SHA-256 of the key (make one with: printf %s \"$KEY\" | sha256sum); keys themselves never go in this file"
        )
    }

    @Test func anHMACWithoutItsHeader() {
        expectError(
            Self.changed("verify: github", "verify: { scheme: hmac, hash: sha256 }"), 5, 13,
            "verify (hmac) is missing 'header', the header that carries the signature")
        expectError(
            Self.changed("verify: github", "verify: { scheme: hmac, header: x-sig, hash: sha265 }"), 5, 50,
            "expected hash as 'sha1', 'sha256' or 'sha512', found 'sha265'; did you mean 'sha256'?")
    }

    @Test func aBadDismissalAndAnActivityThatIsNotThere() {
        expectError(
            Self.changed("{ eta: /eta }", "{ eta: /eta }\n        end: { dismissal: soon }"), 15, 27,
            "expected dismissal as default, immediate or a duration like 90s, 23m, 1h05m10s or 250ms, found 'soon'")
        expectError(
            Self.changed("    events:", "    activity: order-5821\n    events:"), 10, 15,
            "\(scenariosDirectory)/delivery.yaml has no activity 'order-5821'; did you mean 'order-58213'?")
    }

    @Test func startOnAnActivityWithoutAStartBeat() {
        expectError(
            Self.changed("trigger: courier-note", "start: true"), 12, 16,
            "start needs a beat with 'start:' in activity 'order-58213', which push-to-start sends; it has none")
    }

    @Test func aBadListenAddress() {
        expectError(
            Self.changed("127.0.0.1:8080", "localhost"), 2, 9,
            "expected listen as host:port, like 127.0.0.1:8080 or [::1]:8080, found 'localhost'")
    }
}
