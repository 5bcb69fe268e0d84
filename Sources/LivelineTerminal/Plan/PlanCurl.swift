import Liveline

/// A plan as `curl --http2` commands in the form Apple's ActivityKit guide uses, to paste into a
/// shell. Each reads `$AUTHENTICATION_TOKEN` (a JWT; `liveline token` prints one) and the device
/// token from the environment:
///
/// - `$ACTIVITY_PUSH_TOKEN` for updates and ends, `$PUSH_TO_START_TOKEN` for starts;
/// - after the `n`-th renewal, `$ACTIVITY_PUSH_TOKEN_RENEWAL_n`: the successor's update token;
/// - with several activities, one variable each: `$ACTIVITY_PUSH_TOKEN_MATCH_1`, …;
/// - `$APNS_HOST_NAME` picks the host, `api.sandbox.push.apple.com` by default.
///
/// With Android among the platforms, each FCM message is a `messages:send` request of FCM's
/// HTTP v1 API (``androidCommand(_:)``); call ``finish()`` after the run for the messages still
/// waiting for their slot.
public struct PlanCurl: PushSink {
    public let scenario: Scenario
    public let start: Millis
    public let platforms: Set<Platform>
    let emit: (String) -> Void
    var android = AndroidPlatform()

    public init(
        scenario: Scenario, start: Millis, platforms: Set<Platform> = [.ios], emit: @escaping (String) -> Void
    ) {
        self.scenario = scenario
        self.start = start
        self.platforms = platforms
        self.emit = emit
    }

    /// Writes the Android requests still waiting for their slot.
    public mutating func finish() {
        for message in android.finish() { emit(androidCommand(message)) }
    }

    /// The comment block that opens the script.
    public func preamble() -> String {
        switch (platforms.contains(.ios), platforms.contains(.android)) {
        case (true, true):
            return apnsPreamble() + "\n" + androidPreamble().split(separator: "\n").dropFirst().joined(separator: "\n")
        case (false, true): return androidPreamble()
        default: return apnsPreamble()
        }
    }

    private func apnsPreamble() -> String {
        let variables = scenario.activities.flatMap { activity -> [String] in
            var names = ["$" + variable("ACTIVITY_PUSH_TOKEN", activity.name)]
            if activity.startBeat != nil || activity.policy.renewal != nil {
                names.insert("$" + variable("PUSH_TO_START_TOKEN", activity.name), at: 0)
            }
            if activity.policy.renewal != nil {
                names.append("$" + variable("ACTIVITY_PUSH_TOKEN", activity.name) + "_RENEWAL_n")
            }
            return names
        }
        return """
            #!/bin/sh
            # \(scenario.name): pushes planned from \(scenario.file), starting \(UTCTime.format(start)).
            # Set AUTHENTICATION_TOKEN (a JWT: liveline token --key … --key-id … --team-id …) and
            # \(variables.joined(separator: ", ")).
            # APNS_HOST_NAME defaults to api.sandbox.push.apple.com (production: api.push.apple.com).
            """
    }

    private func variable(_ base: String, _ activity: String) -> String {
        guard scenario.activities.count > 1 else { return base }
        let suffix = activity.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
        return base + "_" + suffix
    }

    public mutating func receive(_ push: Push, from activity: ActivityEngine) {
        if platforms.contains(.android) {
            for message in android.receive(push, from: activity) { emit(androidCommand(message)) }
        }
        guard platforms.contains(.ios) else { return }
        let name = activity.program.spec.name
        var token = variable(push.event == .start ? "PUSH_TO_START_TOKEN" : "ACTIVITY_PUSH_TOKEN", name)
        // After a renewal, updates go to the token the successor reports.
        if push.event != .start, push.generation > 0 { token += "_RENEWAL_\(push.generation)" }
        let body = String(decoding: push.payload, as: UTF8.self).replacing("'", with: #"'\''"#)
        var lines = [
            "", "# \(DurationText.clock(push.time - start)) \(name) · \(push.event.rawValue) · \(push.reason)",
        ]
        lines.append("curl -v \\")
        for field in PushHeaders(push, topic: scenario.topic).fields {
            lines.append("  --header \"\(field.name): \(field.value)\" \\")
        }
        lines.append("  --header \"authorization: bearer $AUTHENTICATION_TOKEN\" \\")
        lines.append("  --data '\(body)' \\")
        lines.append("  --http2 \"https://${APNS_HOST_NAME:-api.sandbox.push.apple.com}/3/device/$\(token)\"")
        emit(lines.joined(separator: "\n"))
    }

    public mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        emit("\n# \(DurationText.clock(push.time - start)) \(activity.program.spec.name): not sent, \(problem)")
    }
}
