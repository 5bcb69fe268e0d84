import Foundation
import Testing

/// `liveline load` as a user runs it: its exit statuses.
struct LoadCommandTests {
    static let story = """
        liveline: 1
        name: Short match
        bundle-id: com.example.short
        activities:
          - name: match
            attributes-type: MatchAttributes
            content-state: { minute: 0 }
            beats:
              - { id: tick, every: 1m, count: 5, set: { minute: "{{ n }}" } }
              - { id: final, at: 6m, end: true }
        """

    @Test("exits 0 when every threshold passes, 99 when one fails, 64 for a malformed one")
    func thresholdExitStatuses() async throws {
        let file = try CLI.file(Self.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        func run(_ extra: [String]) async throws -> CLI.Result {
            try await CLI.run(["load", file.path, "--activities", "20", "--target", "discard", "--quiet"] + extra)
        }
        #expect(try await run(["--threshold", "errors=0"]).status == 0)
        #expect(try await run(["--threshold", "rate>1000000000000/s"]).status == 99)
        let malformed = try await run(["--threshold", "p99<"])
        #expect(malformed.status == 64)
        #expect(malformed.stderr.contains("--threshold 'p99<'"))
    }

    @Test("a setting out of range names the flag and exits 64")
    func settingOutOfRange() async throws {
        let file = try CLI.file(Self.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run([
            "load", file.path, "--activities", "20", "--target", "discard", "--shard", "3/2",
        ])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--shard 3/2: the shard must be from 1 to 2"))
    }

    /// ``story`` with an `android:` block: the same match as a Live Update.
    static let bothPlatforms = story.replacingOccurrences(
        of: "    beats:\n",
        with: """
                android:
                  channel: match-live
                  title: "Minute {{ state.minute }}"
                  chip: "{{ state.minute }}'"
                beats:

            """)

    @Test("--android-share plays a share on Android against both embedded mocks, counted per platform")
    func androidShare() async throws {
        let file = try CLI.file(Self.bothPlatforms, suffix: ".yaml")
        let json = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-load-\(UUID().uuidString).json")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: json)
        }
        for tls in [false, true] {
            let result = try await CLI.run(
                [
                    "load", file.path, "--activities", "40", "--android-share", "25%", "--json", json.path,
                    "--threshold", "android:errors=0", "--threshold", "ios:p99<30s", "--threshold",
                    "android:would-not-render=0",
                ] + (tls ? ["--tls"] : []), timeout: 180)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("40 activities (30 iOS, 10 Android)"), "\(result.stdout)")
            #expect(result.stdout.contains("  Android    10 activities · "), "\(result.stdout)")
            #expect(result.stdout.contains("  Phones     "), "\(result.stdout)")
            #expect(result.stdout.contains("✓ android:errors=0"), "\(result.stdout)")
            let text = try String(contentsOf: json, encoding: .utf8)
            #expect(text.contains(#""android-share" : 0.25"#) && text.contains(#""fcm-target" : "mock""#), "\(text)")
            #expect(text.contains(#""transport" : "\#(tls ? "tls" : "h2c")""#), "\(text)")
        }
    }

    @Test("--android-share is checked before anything runs")
    func androidShareMistakes() async throws {
        let plain = try CLI.file(Self.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: plain) }
        let noBlock = try await CLI.run(["load", plain.path, "--activities", "10", "--android-share", "0.5"])
        #expect(noBlock.status == 64)
        #expect(noBlock.stderr.contains("match has no android: block"), "\(noBlock.stderr)")
        let outOfRange = try await CLI.run(["load", plain.path, "--android-share", "1.5"])
        #expect(outOfRange.status == 64)
        #expect(outOfRange.stderr.contains("--android-share 1.5: must be from 0"), "\(outOfRange.stderr)")
        let urlWithoutAccount = try await CLI.run([
            "load", plain.path, "--android-share", "0.5", "--fcm-target", "https://127.0.0.1:1",
        ])
        #expect(urlWithoutAccount.status == 64)
        #expect(urlWithoutAccount.stderr.contains("needs --fcm-service-account"), "\(urlWithoutAccount.stderr)")
        let fcmWithoutShare = try await CLI.run(["load", plain.path, "--fcm-target", "https://127.0.0.1:1"])
        #expect(fcmWithoutShare.status == 64)
        #expect(fcmWithoutShare.stderr.contains("give --android-share"), "\(fcmWithoutShare.stderr)")
    }
}
