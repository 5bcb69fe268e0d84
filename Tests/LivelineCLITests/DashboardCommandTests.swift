import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import LivelineTestSupport
import Testing

/// The live dashboard as users open it: `liveline play --dashboard`, and the page in headless
/// Chromium while a scenario plays (scripts/check/dashboard-check.py).
@Suite(.serialized) struct DashboardCommandTests {
    /// One frame from a dashboard, as `GET /frame` answers it.
    static func frame(_ url: String) async throws -> [String: Any] {
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: url + "frame")))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("play --dashboard prints the URL, serves the story with the plan's reasons, and stays up until Ctrl-C")
    func playDashboard() async throws {
        let file = try CLI.file(PlayCommandTests.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let seen = Seen()
        let result = try await CLI.run(
            ["play", file.path, "--speed", "30", "--no-view", "--dashboard", "--dashboard-listen", "127.0.0.1:0"],
            timeout: 120,
            watchingBoth: { process, _, stderr in
                guard await stderr.wait(for: "until Ctrl-C"),
                    let line = stderr.text.split(separator: "\n").first(where: { $0.hasPrefix("dashboard: ") })
                else { return }
                let url = String(line.dropFirst("dashboard: ".count))
                seen.set(url: url, frame: try? await Self.frame(url))
                process.interrupt()
            })
        #expect(result.status == 0, "\(result.stderr)")
        let (url, frame) = seen.get()
        let found = try #require(url, "no dashboard URL in:\n\(result.stderr)")
        #expect(found.hasPrefix("http://127.0.0.1:"))
        let item = try #require((frame?["activities"] as? [[String: Any]])?.first)
        #expect(item["name"] as? String == "order")
        let activity = try #require(item["activity"] as? [String: Any])
        #expect(activity["lifecycle"] as? String == "ended")
        #expect((activity["content-state"] as? [String: Any])?["message"] as? String == "Delivered")
        let reasons = (frame?["timeline"] as? [[String: Any]] ?? []).compactMap { $0["plan-reason"] as? String }
        // On the real clock the last beats may coalesce ("coalesced 2 beats, last done").
        #expect(reasons.contains { $0.hasPrefix("beat done") || $0.hasSuffix("last done") }, "\(reasons)")
        #expect(result.stderr.contains("the dashboard stays up at \(found) until Ctrl-C"))
    }

    /// What the watcher saw while the command ran.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var url: String?
        private var frame: [String: Any]?

        func set(url: String, frame: [String: Any]?) {
            lock.lock()
            defer { lock.unlock() }
            self.url = url
            self.frame = frame
        }

        func get() -> (String?, [String: Any]?) {
            lock.lock()
            defer { lock.unlock() }
            return (url, frame)
        }
    }

    @Test("--dashboard draws the embedded mock: it refuses --apns-url")
    func refusesRemote() async throws {
        let result = try await CLI.run(
            ["play", "Scenarios/football.yaml", "--dashboard", "--apns-url", "https://127.0.0.1:1"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--dashboard draws the embedded mock's device"))
    }

    /// Chromium or Google Chrome, which scripts/check/dashboard-check.py drives: on the PATH
    /// (Debian's package, Google's), or where macOS installs them (the script looks there too).
    static let chromiumIsAvailable = ToolRequirement(untested: "the dashboard in Chromium", provider: "chromium")
        .check(
            (["chromium", "chromium-browser", "google-chrome"].contains(where: ToolRequirement.onPath)
                || macOSBrowsers.contains(where: FileManager.default.isExecutableFile(atPath:)))
                && ToolRequirement.onPath("python3"))

    static let macOSBrowsers = [
        "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
        "/Applications/Chromium.app/Contents/MacOS/Chromium",
        NSHomeDirectory() + "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    ]

    @Test(
        "the page in headless Chromium while football.yaml plays: score, alert banner, stale, ended, a second start, screenshots",
        .enabled(
            if: chromiumIsAvailable, "needs Chromium or Google Chrome, and python3 (scripts/test.sh installs them)"))
    func chromium() async throws {
        let binary = try CLI.binary()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-dashboard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let check = try await Subprocess.run(
            [
                "python3", CLI.packageRoot.appendingPathComponent("scripts/check/dashboard-check.py").path,
                "--liveline", binary.path, "--out", out.path,
            ],
            mergingErrors: true)
        let output = check.stdout
        #expect(
            check.status == 0,
            "scripts/check/dashboard-check.py failed:\n\(output)"
        )
        #expect(output.contains("dashboard: every check passed"))
        for name in ["lock-screen-goal.png", "stale.png", "ended.png", "duplicate-start.png"] {
            let size =
                (try? FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(name).path)[.size] as? Int)
                ?? 0
            #expect(size > 10_000, "\(name) is missing or empty")
        }
    }

    @Test(
        "bridge serve --dashboard in headless Chromium: a key's followers by state (starts in doubt highlighted) and its fan-outs, with one fan's Lock Screen",
        .enabled(
            if: chromiumIsAvailable, "needs Chromium or Google Chrome, and python3 (scripts/test.sh installs them)"))
    func audienceInChromium() async throws {
        let binary = try CLI.binary()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-dashboard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let check = try await Subprocess.run(
            [
                "python3", CLI.packageRoot.appendingPathComponent("scripts/check/dashboard-check.py").path,
                "--audience", "--followers", "2000",
                "--liveline", binary.path, "--out", out.path,
            ],
            mergingErrors: true)
        let output = check.stdout
        #expect(check.status == 0, "scripts/check/dashboard-check.py --audience failed:\n\(output)")
        #expect(output.contains("dashboard: every check passed"))
        for name in ["audience.png", "audience-in-doubt.png", "audience-narrow.png"] {
            let size =
                (try? FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(name).path)[.size] as? Int)
                ?? 0
            #expect(size > 10_000, "\(name) is missing or empty")
        }
    }
}
