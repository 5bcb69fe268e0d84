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
}
