import Foundation
import LivelineTestSupport
import Testing

/// The ready-made Stripe demo as the README pastes it: the bridge keeps its store under the
/// state directory, `bridge send --follow` tells what the webhook did down to the device, an
/// event for an activity nobody registered says so, and a second bridge on the same address
/// names it and the likely cause.
@Suite struct BridgeSendFollowTests {
    @Test func followShowsThePushAPNsAnswerAndTheDevice() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-follow-\(UUID().uuidString)")
        let state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = CLI.packageRoot.path
        let config = "\(root)/Scenarios/sources/stripe.yaml"
        let environment = ["STRIPE_WEBHOOK_SECRET": "whsec_demo", "LIVELINE_STATE_DIR": state.path]

        let result = try await CLI.run(
            ["bridge", "serve", "--config", config, "--listen", "127.0.0.1:0"], environment: environment, timeout: 120
        ) { process, out in
            guard await out.wait(for: "listening on http://127.0.0.1:"),
                let port = out.text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/)?.1
            else {
                Issue.record("the bridge did not say where it listens: \(out.text)")
                process.interrupt()
                return
            }
            let base = "http://127.0.0.1:\(port)"
            // The store is the configuration's own, under the state directory.
            #expect(out.text.contains("store   SQLite at \(state.path)/stripe-"), "\(out.text)")

            // Nobody registered 58213 yet: the event waits, and --follow says so (exit 1).
            let waiting = try? await CLI.run(
                [
                    "bridge", "send", "--config", config, "--url", base, "stripe",
                    "\(root)/Scenarios/sources/stripe/02-payment-intent-processing.json",
                    "--follow", "--api-key", "demo-key",
                ], environment: environment)
            #expect(waiting?.status == 1)
            #expect(
                waiting?.stdout.contains("no activity '58213' is registered, so the event waits in the inbox") == true,
                "\(waiting?.stdout ?? "") \(waiting?.stderr ?? "")")

            _ = try? await Subprocess.run([
                "curl", "-s", "--max-time", "10", "-X", "PUT", "\(base)/v1/activities/58213", "-H",
                "Authorization: Bearer demo-key",
                "-H", "Content-Type: application/json", "-d",
                #"{"update-token": "\#(String(repeating: "cd", count: 32))", "source": "stripe"}"#,
            ])
            let followed = try? await CLI.run(
                [
                    "bridge", "send", "--config", config, "--url", base, "stripe",
                    "\(root)/Scenarios/sources/stripe/03-payment-intent-succeeded.json",
                    "--follow", "--api-key", "demo-key", "--wait", "30s",
                ], environment: environment)
            let text = followed?.stdout ?? ""
            #expect(followed?.status == 0, "\(text) \(followed?.stderr ?? "")")
            #expect(text.hasPrefix("202 {\"status\":\"stored\",\"event\":\"evt_"), "\(text)")
            #expect(text.contains("\"activity\":\"58213\""), "\(text)")
            #expect(text.contains("(payment_intent.succeeded) of stripe → activity 58213"), "\(text)")
            #expect(text.contains("\napplied    at "), "\(text)")
            #expect(text.contains("\npush       update p"), "\(text)")
            #expect(text.contains("last event payment_intent.succeeded"), "\(text)")
            #expect(text.contains("\nAPNs       200 at "), "\(text)")
            #expect(text.contains("\ndevice     rendered · active · {"), "\(text)")
            #expect(text.contains(#""status":"preparing""#), "\(text)")

            // Without a key --follow cannot read the events API.
            let keyless = try? await CLI.run(
                [
                    "bridge", "send", "--config", config, "--url", base, "stripe",
                    "\(root)/Scenarios/sources/stripe/03-payment-intent-succeeded.json", "--follow",
                ], environment: environment)
            #expect(keyless?.status == 64)
            #expect(
                keyless?.stderr.contains("--follow reads GET /v1/events/… with a registry API key") == true,
                "\(keyless?.stderr ?? "")")

            // A second bridge on the same address says which and why.
            let second = try? await CLI.run(
                ["bridge", "serve", "--config", config, "--listen", "127.0.0.1:\(port)"], environment: environment,
                timeout: 60)
            #expect(second?.status == 2)
            #expect(
                second?.stderr.contains(
                    "the bridge cannot listen on 127.0.0.1:\(port): the address is in use; another Liveline bridge or mock, or another program, is listening on 127.0.0.1:\(port)"
                ) == true, "\(second?.stderr ?? "")")
            // The stop that follows is no problem of the store's.
            #expect(second?.stderr.contains("could not read the store's depths") == false, "\(second?.stderr ?? "")")
            process.interrupt()
        }
        #expect(result.status == 0, "\(result.stderr)")
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: state.path)) ?? []
        #expect(stored.contains { $0.hasPrefix("stripe-") && $0.hasSuffix(".sqlite") }, "\(stored)")
    }
}
