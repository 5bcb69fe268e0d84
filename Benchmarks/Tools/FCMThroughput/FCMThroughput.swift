import Foundation
import Liveline
import LivelineFCM

// Sends N Live Update messages to an FCM look-alike over one HTTP/2 connection, at most M in
// flight, through FCMClient (the access token from the service account's token endpoint, FCM's
// answers read as a sender reads them), and prints messages/s and the answers. Used by
// scripts/bench/fcm-client.sh beside h2load sending the same request.
//
//   fcm-throughput --service-account sa.json --url https://127.0.0.1:PORT --ca cert.pem \
//     --requests N --in-flight M [--write-body body.json]
//
// --write-body writes the request's JSON body, byte for byte, for h2load to send.

@main
enum FCMThroughput {
    static func main() async throws {
        var options: [String: String] = [:]
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            if argument.hasPrefix("--") { options[argument] = arguments.popFirst() }
        }
        func option(_ name: String) -> String {
            guard let value = options[name] else {
                FileHandle.standardError.write(Data("fcm-throughput: missing \(name)\n".utf8))
                exit(64)
            }
            return value
        }
        let requests = Int(option("--requests")) ?? 100_000
        let inFlight = max(1, Int(option("--in-flight")) ?? 100)
        let account = try ServiceAccount(contentsOf: option("--service-account"))
        let client = try FCMClient(
            configuration: .init(account: account, url: option("--url"), trustedCertificates: options["--ca"]))
        let request = try FCMSendRequest(
            project: account.projectID, target: .token("bench-phone:APA91bHun4MxP5egoKMwt2KZFBaFUH"),
            data: Self.goal, priority: .high, ttlSeconds: 300, collapseKey: "kingsmere-v-redcliffe")
        if let path = options["--write-body"] {
            try Data(request.body).write(to: URL(fileURLWithPath: path))
        }

        // The connection and the access token first, as a sender's start-up does.
        try await client.connect()
        _ = await client.send(request)

        let clock = ContinuousClock()
        let began = clock.now
        let answers = await withTaskGroup(of: String.self) { group in
            var answers: [String: Int] = [:]
            var started = 0
            while started < min(inFlight, requests) {
                group.addTask { await Self.answer(client.send(request)) }
                started += 1
            }
            while let answer = await group.next() {
                answers[answer, default: 0] += 1
                if started < requests {
                    group.addTask { await Self.answer(client.send(request)) }
                    started += 1
                }
            }
            return answers
        }
        let seconds =
            Double((clock.now - began).components.attoseconds) / 1e18
            + Double((clock.now - began).components.seconds)
        let rate = Double(requests) / seconds
        let summary = answers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        print("\(Int(rate.rounded())) {\(summary)}")
        await client.shutdown()
    }

    /// What FCM's answer was, in a word: `200`, or the error's status and code.
    static func answer(_ outcome: FCMSendOutcome) -> String {
        outcome.isDelivered ? "200" : "\(outcome.status) \(outcome.cause)"
    }

    /// A goal in the football match, as the story's `android:` block makes it.
    static let goal = FCMData([
        (LiveUpdateKeys.version, LiveUpdateKeys.currentVersion), (LiveUpdateKeys.activity, "kingsmere-v-redcliffe"),
        (LiveUpdateKeys.event, "update"), (LiveUpdateKeys.timestamp, "1795808340000"),
        (LiveUpdateKeys.channel, "live-updates"), (LiveUpdateKeys.smallIcon, "ic_stat_football"),
        (LiveUpdateKeys.style, "progress"), (LiveUpdateKeys.title, "Kingsmere 1–0 Redcliffe"),
        (LiveUpdateKeys.text, "GOAL! Whitfield 69'"), (LiveUpdateKeys.chip, "1–0"), (LiveUpdateKeys.progress, "69"),
        (LiveUpdateKeys.progressMax, "90"), (LiveUpdateKeys.alert, "1"),
        (LiveUpdateKeys.alertTitle, "GOAL! Kingsmere 1–0"), (LiveUpdateKeys.alertBody, "Whitfield 69'"),
    ])
}
