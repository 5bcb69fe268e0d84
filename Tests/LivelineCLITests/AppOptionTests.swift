import Foundation
import Testing

/// `--app` as a user runs it: `validate`, `plan` and `scaffold` against the example app.
@Suite struct AppOptionTests {
    static func path(_ relative: String) -> String { CLI.packageRoot.appendingPathComponent(relative).path }

    /// delivery.yaml with `status: on-the-way` written the way the app's case is named.
    static func mismatchedDelivery() throws -> URL {
        let text = try String(contentsOfFile: path("Scenarios/delivery.yaml"), encoding: .utf8)
        return try CLI.file(text.replacingOccurrences(of: "status: on-the-way", with: "status: onTheWay"), suffix: ".yaml")
    }

    @Test("validate --app passes the examples and says they decode in the app")
    func validateExamples() async throws {
        let result = try await CLI.run(["validate", "--app", Self.path("Scenarios/app"), Self.path("Scenarios/football.yaml"), Self.path("Scenarios/delivery.yaml")])
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
        let line = try String(contentsOfFile: file.path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains("status: onTheWay") }.map { $0 + 1 }
        let expected = "\(file.path):\(try #require(line)):19: error: content-state.status is \"onTheWay\", which is not a raw value of "
            + "DeliveryAttributes.ContentState.Status (one of \"placed\", \"preparing\", \"arriving\", \"delivered\", \"on-the-way\"); "
            + "did you mean 'on-the-way'? (DeliveryAttributes.swift:15: var status: Status)"
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
        let planned = try await CLI.run(["plan", "--app", Self.path("Scenarios/app"), Self.path("Scenarios/delivery.yaml"), "--start", "2026-11-23T20:00:00Z"])
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
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-scaffold-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = try await CLI.run(["scaffold", "--app", Self.path("Scenarios/app"), "--output", folder.path])
        #expect(written.status == 0, "\(written.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["delivery-attributes.yaml", "match-attributes.yaml"])
        let again = try await CLI.run(["scaffold", "--app", Self.path("Scenarios/app"), "--output", folder.path])
        #expect(again.status == 1)
        #expect(again.stderr.contains("exists; not overwritten"))
        let validated = try await CLI.run(["validate", "--strict", "--app", Self.path("Scenarios/app")] + files.map { folder.appendingPathComponent($0).path })
        #expect(validated.status == 0, "\(validated.stdout)")
    }
}
