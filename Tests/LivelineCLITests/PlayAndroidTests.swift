import Foundation
import LivelineTestSupport
import Testing

/// `liveline play --platform`: the same story to the iPhone and, as a Live Update through FCM, to
/// an Android phone behind the embedded mock FCM.
@Suite struct PlayAndroidTests {
    /// ``PlayCommandTests/story`` with a Live Update.
    static let story = PlayCommandTests.story.replacingOccurrences(
        of: "    beats:\n",
        with: """
                android:
                  channel: delivery-live
                  title: "Order"
                  text: "{{ state.message }}"
                  chip: "step {{ state.step }}"
                  progress: "{{ state.step }}"
                  progress-max: 3
                beats:

            """)

    @Test func bothPlatformsPlayTheSameStoryAndThePhoneShowsIt() async throws {
        let file = try CLI.file(Self.story, suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLI.run(["play", file.path, "--speed", "30", "--no-view", "--platform", "both"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("mock FCM https://127.0.0.1:"), "\(result.stderr)")
        let android = result.stdout.split(separator: "\n").filter { $0.contains("  android  order  ") }
        // At least the first update and the end (a wake late on a busy machine may merge the steps).
        #expect(android.count >= 2, "\(result.stdout)")
        #expect(android.first?.contains("update HIGH") == true, "\(result.stdout)")
        #expect(android.first?.contains("FCM 200 · phone: posted") == true, "\(result.stdout)")
        #expect(android.last?.contains("end HIGH") == true, "\(result.stdout)")
        // The iPhone's pushes are still there, one story for both.
        #expect(result.stdout.split(separator: "\n").contains { !$0.contains("android") && $0.contains("order") })
        #expect(result.stderr.contains("Live Update messages delivered through FCM"), "\(result.stderr)")
    }

    @Test func aScenarioWithoutAnAndroidBlockSaysWhatToAdd() async throws {
        let plain = try CLI.file(
            Self.story.components(separatedBy: "    android:\n")[0] + "    beats:\n"
                + Self.story.components(separatedBy: "    beats:\n")[1], suffix: ".yaml")
        defer { try? FileManager.default.removeItem(at: plain) }
        let result = try await CLI.run(["play", plain.path, "--speed", "30", "--no-view", "--platform", "android"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("has no android: block"), "\(result.stderr)")
    }

    @Test func mockFCMServesTLSAndWritesAServiceAccountForItsTokenEndpoint() async throws {
        let temporary = FileManager.default.temporaryDirectory
        let account = temporary.appendingPathComponent("liveline-cli-sa-\(UUID().uuidString).json")
        let certificate = temporary.appendingPathComponent("liveline-cli-fcm-\(UUID().uuidString).pem")
        defer {
            try? FileManager.default.removeItem(at: account)
            try? FileManager.default.removeItem(at: certificate)
        }
        let child = try ChildProcess.start([
            try CLI.binary().path, "mock-fcm", "--listen", "127.0.0.1:0", "--write-service-account", account.path,
            "--write-ca", certificate.path,
        ])
        // The banner follows the key file, whose 2048-bit RSA key takes seconds in a debug build.
        let banner = await child.line(startingWith: "mock FCM listening on ", seconds: 180)
        let base = try #require(banner?.split(separator: " ").dropFirst(4).first.map(String.init), "\(child.output)")
        #expect(base.hasPrefix("https://127.0.0.1:"), "\(child.output)")
        let text = try String(contentsOf: account, encoding: .utf8)
        #expect(text.contains("\"token_uri\":\"\(base)/token\""), "\(text)")
        #expect(text.contains("\"type\":\"service_account\""))
        // The inspection API answers on the same port, over TLS with the certificate it wrote, by
        // HTTP/1.1 and by HTTP/2 (ALPN), one JSON object and a newline.
        for version in ["--http1.1", "--http2"] {
            let stats = try await Subprocess.run(
                ["curl", "-s", version, "--cacert", certificate.path, "-w", "|%{http_version}", base + "/mock/stats"])
            #expect(stats.stdout.hasPrefix("{\"accepted\":0,"), "\(stats.stdout)\(stats.stderr)")
            #expect(stats.stdout.hasSuffix("}\n|\(version == "--http2" ? "2" : "1.1")"), "\(stats.stdout)")
        }
        // Without the certificate, curl refuses it: the mock is not pretending to be trusted.
        let untrusted = try await Subprocess.run(["curl", "-s", base + "/mock/stats"])
        #expect(untrusted.status != 0)
        await child.stop()
    }

    @Test func mockFCMServesPlainWhenAsked() async throws {
        let account = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-cli-sa-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: account) }
        let child = try ChildProcess.start([
            try CLI.binary().path, "mock-fcm", "--listen", "127.0.0.1:0", "--write-service-account", account.path,
            "--plain",
        ])
        let banner = await child.line(startingWith: "mock FCM listening on ", seconds: 180)
        let base = try #require(banner?.split(separator: " ").dropFirst(4).first.map(String.init), "\(child.output)")
        #expect(base.hasPrefix("http://127.0.0.1:"), "\(child.output)")
        let stats = try await Subprocess.run(["curl", "-s", "--http2-prior-knowledge", base + "/mock/stats"])
        #expect(stats.stdout.hasPrefix("{\"accepted\":0,"), "\(stats.stdout)\(stats.stderr)")
        await child.stop()
    }

    @Test func mockFCMRefusesTLSFilesWithPlain() async throws {
        let result = try await CLI.run(["mock-fcm", "--plain", "--tls-cert", "c.pem", "--tls-key", "k.pem"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--plain serves no TLS"), "\(result.stderr)")
    }
}
