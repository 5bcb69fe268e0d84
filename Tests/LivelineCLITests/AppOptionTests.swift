import Foundation
import Testing

/// `--app` as a user runs it: `validate`, `plan` and `scaffold` against the example app.
@Suite struct AppOptionTests {
    static func path(_ relative: String) -> String { CLI.packageRoot.appendingPathComponent(relative).path }

    /// delivery.yaml with `status: on-the-way` written the way the app's case is named.
    static func mismatchedDelivery() throws -> URL {
        let text = try String(contentsOfFile: path("Scenarios/delivery.yaml"), encoding: .utf8)
        return try CLI.file(
            text.replacingOccurrences(of: "status: on-the-way", with: "status: onTheWay"), suffix: ".yaml")
    }

    @Test("validate --app passes the examples and says they decode in the app")
    func validateExamples() async throws {
        let result = try await CLI.run([
            "validate", "--app", Self.path("Scenarios/app"), Self.path("Scenarios/football.yaml"),
            Self.path("Scenarios/delivery.yaml"),
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("football.yaml: ok, 1 activity, decodes in the app"))
        #expect(result.stdout.contains("delivery.yaml: ok, 1 activity, decodes in the app"))
    }

    @Test("validate --app locates a mismatch in the YAML and names the Swift declaration")
    func validateMismatch() async throws {
        let file = try Self.mismatchedDelivery()
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(["validate", "--app", Self.path("Scenarios/app"), file.path])
        #expect(result.status == 1)
        let line = try String(contentsOfFile: file.path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .firstIndex { $0.contains("status: onTheWay") }.map { $0 + 1 }
        let expected =
            "\(file.path):\(try #require(line)):19: error: content-state.status is \"onTheWay\", which is not a raw value of "
            + "DeliveryAttributes.ContentState.Status (one of \"placed\", \"preparing\", \"arriving\", \"delivered\", \"on-the-way\", \"cancelled\"); "
            + "did you mean 'on-the-way'? (DeliveryAttributes.swift:17: var status: Status)"
        #expect(result.stdout.contains(expected), "\(result.stdout)")
        #expect(result.stdout.contains("1 error against the app's types"))
    }

    @Test("plan --app refuses a story the app would not decode, and plans one it would")
    func planRefuses() async throws {
        let file = try Self.mismatchedDelivery()
        defer { try? FileManager.default.removeItem(at: file) }
        let refused = try await CLI.run(["plan", "--app", Self.path("Scenarios/app"), file.path])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("the app would not decode this (--app); nothing was sent"), "\(refused.stderr)")
        let planned = try await CLI.run([
            "plan", "--app", Self.path("Scenarios/app"), Self.path("Scenarios/delivery.yaml"), "--start",
            "2026-11-23T20:00:00Z",
        ])
        #expect(planned.status == 0, "\(planned.stderr)")
        #expect(planned.stdout.contains("start"))
    }

    @Test("--app with a path that does not exist, or no ActivityAttributes, is a clear error")
    func badAppPath() async throws {
        let missing = try await CLI.run(["validate", "--app", "/no/such/app", Self.path("Scenarios/football.yaml")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("error: --app /no/such/app: no such file or folder"))
        let empty = try CLI.file("struct NotAnActivity: Codable { var x: Int }\n", suffix: ".swift")
        defer { try? FileManager.default.removeItem(at: empty) }
        let none = try await CLI.run(["validate", "--app", empty.path, Self.path("Scenarios/football.yaml")])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no type conforming to ActivityAttributes"))
    }

    @Test("scaffold --app writes one starter per type, never overwrites, and the starters validate")
    func scaffold() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-scaffold-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = try await CLI.run(["scaffold", "--app", Self.path("Scenarios/app"), "--output", folder.path])
        #expect(written.status == 0, "\(written.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["delivery-attributes.yaml", "match-attributes.yaml"])
        let again = try await CLI.run(["scaffold", "--app", Self.path("Scenarios/app"), "--output", folder.path])
        #expect(again.status == 1)
        #expect(again.stderr.contains("exists; not overwritten"))
        let validated = try await CLI.run(
            ["validate", "--strict", "--app", Self.path("Scenarios/app")]
                + files.map { folder.appendingPathComponent($0).path })
        #expect(validated.status == 0, "\(validated.stdout)")
    }
}

/// A bridge configuration against the app: `validate FILE` recognises one, and `bridge serve
/// --app` refuses mappings the phone would drop before it opens anything.
@Suite struct BridgeAppOptionTests {
    static let secrets = [
        "DOORDASH_WEBHOOK_AUTH": "Bearer dd-demo", "UBER_SIGNING_KEY": "uber-demo",
        "ORDERS_WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    ]

    /// bridge.example.yaml with its scenario paths made absolute and `edit` applied.
    static func example(_ edit: (String) -> String = { $0 }) throws -> URL {
        let text = try String(contentsOfFile: AppOptionTests.path("Scenarios/bridge.example.yaml"), encoding: .utf8)
            .replacingOccurrences(
                of: "scenario: delivery.yaml", with: "scenario: " + AppOptionTests.path("Scenarios/delivery.yaml"))
        return try CLI.file(edit(text), suffix: ".yaml")
    }

    @Test("validate checks a bridge configuration as one, not as a scenario; with --app its mappings too")
    func validateBridge() async throws {
        let plain = try await CLI.run(["validate", AppOptionTests.path("Scenarios/bridge.example.yaml")])
        #expect(plain.status == 0, "\(plain.stdout)")
        #expect(plain.stdout.contains("bridge.example.yaml: ok, bridge configuration, 3 sources"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("unknown"))
        let app = try await CLI.run([
            "validate", "--app", AppOptionTests.path("Scenarios/app"),
            AppOptionTests.path("Scenarios/bridge.example.yaml"),
        ])
        #expect(app.status == 0, "\(app.stdout)")
        // Uber's status is passed through as sent: only the sender knows whether it is one of the app's.
        #expect(
            app.stdout.contains(
                "warning: sources.uber.events.event.delivery_status: content-state.status is the value at /status of the event, known only when the event arrives; the app decodes Status here"
            ), "\(app.stdout)")
        #expect(app.stdout.contains("not fully checked against the app"))
        #expect(!app.stdout.contains("decodes in the app"))
    }

    @Test(
        "a set: or map value the app's enum lacks is an error in the bridge YAML naming the Swift line; serve refuses to start"
    )
    func refusesMapping() async throws {
        let file = try Self.example { $0.replacingOccurrences(of: "status: cancelled", with: "status: canceled") }
        defer { try? FileManager.default.removeItem(at: file) }
        let line = try String(contentsOfFile: file.path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .firstIndex { $0.contains("status: canceled") }.map { $0 + 1 }
        let expected =
            "\(file.path):\(try #require(line)):19: error: sources.doordash.events.DELIVERY_CANCELLED: content-state.status is \"canceled\", "
            + "which is not a raw value of DeliveryAttributes.ContentState.Status (one of \"placed\", \"preparing\", \"arriving\", \"delivered\", \"on-the-way\", \"cancelled\"); "
            + "did you mean 'cancelled'? (DeliveryAttributes.swift:17: var status: Status)"
        let validated = try await CLI.run(["validate", "--app", AppOptionTests.path("Scenarios/app"), file.path])
        #expect(validated.status == 1)
        #expect(validated.stdout.contains(expected), "\(validated.stdout)")
        let served = try await CLI.run(
            [
                "bridge", "serve", "--config", file.path, "--app", AppOptionTests.path("Scenarios/app"), "--listen",
                "127.0.0.1:0",
            ], environment: Self.secrets)
        #expect(served.status == 1)
        #expect(served.stderr.contains(expected), "\(served.stderr)")
        #expect(served.stderr.contains("1 error against the app's types; not serving"))
        #expect(!served.stdout.contains("listening"))
    }

    @Test("the configuration's own app: key is read; each value of a map is checked where it is written")
    func appKeyAndValueMap() async throws {
        let file = try Self.example {
            $0.replacingOccurrences(
                of: "listen: 127.0.0.1:8080",
                with: "listen: 127.0.0.1:8080\napp: " + AppOptionTests.path("Scenarios/app")
            )
            .replacingOccurrences(
                of: "status: /status",
                with: "status: { from: /status, map: { pickup_complete: on-the-way, dropoff: arrived } }")
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let line = try String(contentsOfFile: file.path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .firstIndex { $0.contains("dropoff: arrived") }.map { $0 + 1 }
        let result = try await CLI.run(["validate", file.path])
        #expect(result.status == 1, "\(result.stdout)")
        let expected =
            "\(file.path):\(try #require(line)):81: error: sources.uber.events.event.delivery_status: content-state.status is \"arrived\", "
            + "which is not a raw value of DeliveryAttributes.ContentState.Status (one of \"placed\", \"preparing\", \"arriving\", \"delivered\", \"on-the-way\", \"cancelled\") "
            + "(DeliveryAttributes.swift:17: var status: Status)"
        #expect(result.stdout.contains(expected), "\(result.stdout)")
    }
}

/// Names declared twice, syntax errors and several types at once, as `scaffold` and `validate` meet them.
@Suite struct AppSourceEdgeTests {
    /// Two copies of one type in two folders, the way a backup or a second target leaves them.
    static func duplicateApp() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-dup-\(UUID().uuidString)")
        for (folder, field) in [("Widget", "minutesLeft: Int"), ("Backup", "eta: String")] {
            let dir = root.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try """
            struct DeliveryAttributes: ActivityAttributes {
                struct ContentState: Codable, Hashable {
                    var status: String
                    var \(field)
                }
            }
            struct PETLiveActivityAttributes: ActivityAttributes {
                struct ContentState: Codable, Hashable { var name: String }
            }

            """.write(to: dir.appendingPathComponent("Attributes.swift"), atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test("scaffold writes a file for each copy of a type, named by module, and each validates with --app-type")
    func scaffoldDuplicates() async throws {
        let app = try Self.duplicateApp()
        let out = app.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: app) }
        let written = try await CLI.run([
            "scaffold", "--app", app.appendingPathComponent("Backup").deletingLastPathComponent().path, "--output",
            out.path,
        ])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stderr.contains("warning: DeliveryAttributes is declared 2 times"), "\(written.stderr)")
        #expect(
            written.stderr.contains(
                "choose with --app-type Backup.DeliveryAttributes or --app-type Widget.DeliveryAttributes"),
            "\(written.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(
            files == [
                "backup-delivery-attributes.yaml", "backup-pet-live-activity-attributes.yaml",
                "widget-delivery-attributes.yaml", "widget-pet-live-activity-attributes.yaml",
            ], "\(files)")
        for (module, file) in [
            ("Backup", "backup-delivery-attributes.yaml"), ("Widget", "widget-delivery-attributes.yaml"),
        ] {
            let chosen = try await CLI.run([
                "validate", "--strict", "--app", app.path, "--app-type", "\(module).DeliveryAttributes",
                out.appendingPathComponent(file).path,
            ])
            #expect(chosen.status == 0, "\(file): \(chosen.stdout)\(chosen.stderr)")
        }
        // Without a choice the check says which copy it used, and does not claim the story decodes.
        let unchosen = try await CLI.run([
            "validate", "--app", app.path, out.appendingPathComponent("widget-delivery-attributes.yaml").path,
        ])
        #expect(unchosen.status == 1, "\(unchosen.stdout)")
        #expect(
            unchosen.stdout.contains(
                "warning: DeliveryAttributes is declared 2 times, in \(app.path)/Backup/Attributes.swift:1 and \(app.path)/Widget/Attributes.swift:1; checked against the first only"
            ), "\(unchosen.stdout)")
        let stdout = try await CLI.run(["scaffold", "--stdout", "--app", app.path, "--app-type", "Widget/"])
        #expect(stdout.status == 0, "\(stdout.stderr)")
        #expect(stdout.stdout.hasPrefix("---\n"))
        #expect(stdout.stdout.components(separatedBy: "\n---\n").count == 2, "\(stdout.stdout)")
        #expect(!stdout.stderr.contains("declared 2 times"), "\(stdout.stderr)")
    }

    @Test(
        "a syntax error in the app's source is reported at its line, and the summary does not claim the story decodes")
    func syntaxError() async throws {
        let source = try CLI.file(
            """
            struct TimerAttributes: ActivityAttributes {
                struct ContentState: Codable, Hashable {
                    var ends Date
                }
            }

            """, suffix: ".swift")
        defer { try? FileManager.default.removeItem(at: source) }
        let scenario = try CLI.file(
            """
            liveline: 1
            name: t
            bundle-id: com.example.app
            activities:
              - name: one
                attributes-type: TimerAttributes
                content-state: { ends: !date +5m }
                beats:
                  - { at: 5m, end: { dismissal: immediate } }

            """, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: scenario) }
        let result = try await CLI.run(["validate", "--app", source.path, scenario.path])
        #expect(
            result.stderr.contains("\(source.path):3:17: warning: Swift syntax error: expected ':' in type annotation"),
            "\(result.stderr)")
        #expect(!result.stdout.contains("decodes in the app"), "\(result.stdout)")
    }
}
