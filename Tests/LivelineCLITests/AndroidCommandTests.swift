import Foundation
import Testing

/// `validate` and `plan` with `android:` blocks, as users run them.
@Suite struct AndroidCommandTests {
    static func path(_ relative: String) -> String { CLI.packageRoot.appendingPathComponent(relative).path }

    @Test("validate checks the examples' android: blocks and locates what is wrong")
    func validateLocatesAndroidErrors() async throws {
        let good = try await CLI.run([
            "validate", Self.path("Scenarios/football.yaml"), Self.path("Scenarios/delivery.yaml"),
        ])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")

        let text = try String(contentsOfFile: Self.path("Scenarios/football.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "phase: \"{{ state.phase }}\"", with: "from: \"{{ state.phase }}\"")
            .replacingOccurrences(of: "      channel: match-live\n", with: "")
        let file = try CLI.file(text, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(["validate", file.path])
        #expect(result.status == 1)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let android = try #require(lines.firstIndex { $0.contains("android:") }) + 2
        let from = try #require(lines.firstIndex { $0.contains("from: \"{{ state.phase }}\"") }) + 1
        #expect(
            result.stdout.contains("\(file.path):\(android):7: error: android is missing 'channel'"), "\(result.stdout)"
        )
        #expect(
            result.stdout.contains("\(file.path):\(from):9: error: FCM refuses the data key 'from'"), "\(result.stdout)"
        )
        #expect(result.stdout.contains("^"))
    }

    @Test("validate finds a chip that grows too long by playing the story")
    func validateChipAtItsMoment() async throws {
        let text = try String(contentsOfFile: Self.path("Scenarios/football.yaml"), encoding: .utf8)
            .replacingOccurrences(
                of: #"chip: "{{ state.homeScore }}–{{ state.awayScore }}""#,
                with: #"chip: "{{ state.minute }}' {{ state.homeScore }} - {{ state.awayScore }}""#)
        let file = try CLI.file(text, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(["validate", file.path])
        #expect(result.status == 1)
        let line =
            try #require(
                text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
                    $0.contains("chip: \"{{ state.minute }}'")
                }) + 1
        #expect(
            result.stdout.contains(
                "\(file.path):\(line):13: error: the chip at +04:00 (beat line-ups) is \"0' 0 - 0\", 8 characters; Android suggests at most 7 and may show it as \"0' 0 -…\""
            ), "\(result.stdout)")
    }

    @Test("plan shows both platforms for a scenario with android:, one with --platform")
    func planBothPlatforms() async throws {
        let args = ["plan", Self.path("Scenarios/football.yaml"), "--start", "2026-11-23T20:00:00Z"]
        let both = try await CLI.run(args)
        #expect(both.status == 0, "\(both.stderr)")
        #expect(both.stdout.contains("PLATFORM"))
        #expect(both.stdout.contains("android: FCM data messages · channel match-live"))
        #expect(both.stdout.contains(" android "))
        #expect(both.stdout.contains("FCM messages:"))
        let ios = try await CLI.run(args + ["--platform", "ios"])
        #expect(!ios.stdout.contains("PLATFORM") && !ios.stdout.contains("FCM"))
        let android = try await CLI.run(args + ["--platform", "android", "--format", "jsonl"])
        #expect(android.status == 0)
        let lines = android.stdout.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasSuffix(#""platform":"android"}"#) })
        #expect(android.stdout.contains(#""collapse_key":"northbridge-v-harbour-city""#))
        let curl = try await CLI.run(args + ["--platform", "android", "--format", "curl"])
        #expect(curl.stdout.contains("/v1/projects/${FCM_PROJECT_ID}/messages:send"))
        #expect(curl.stdout.contains(#""token":"'"$FCM_REGISTRATION_TOKEN"'""#))
    }

    @Test("plan --platform android without an android: block says what to add")
    func planAndroidWithoutBlock() async throws {
        let result = try await CLI.run(["plan", Self.path("Scenarios/overnight-flight.yaml"), "--platform", "android"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("has no android: block"), "\(result.stderr)")
    }
}
