import HTTPTypes
import Liveline

/// Waits until a bridge answers `GET /readyz` with 200 (it listens, its store answers, it is
/// not draining), for a script that starts `liveline bridge serve &` and uses it on the next
/// line: `liveline bridge wait-ready`.
public struct ReadinessWait: Sendable {
    /// The bridge's base URL, like `http://127.0.0.1:8080`.
    public var base: String
    /// The longest wait.
    public var timeout: Duration
    /// The pause between two asks.
    public var interval: Duration

    /// A wait for the bridge at `base`, asking every `interval` for up to `timeout`.
    public init(base: String, timeout: Duration = .seconds(30), interval: Duration = .milliseconds(100)) {
        self.base = base
        self.timeout = timeout
        self.interval = interval
    }

    /// Returns how long it took once the bridge is ready; throws ``ReadinessTimedOut`` with the
    /// last answer (or failure) when it is not within the timeout.
    @discardableResult
    public func wait() async throws(ReadinessTimedOut) -> Duration {
        let clock = ContinuousClock()
        let began = clock.now
        let url = base.hasSuffix("/") ? base + "readyz" : base + "/readyz"
        let sender = WebhookSender(timeout: min(timeout, .seconds(2)), maximumAnswer: 4096)
        var last = "no answer"
        while true {
            do {
                let answer = try await sender.send(to: url, method: .get, headers: HTTPFields(), body: [])
                if answer.status == 200 { return began.duration(to: clock.now) }
                last = "\(answer.status) \(answer.text.trimmingCharacters(in: .whitespacesAndNewlines))"
            } catch {
                last = error.message
            }
            if began.duration(to: clock.now) + interval >= timeout {
                throw ReadinessTimedOut(url: url, timeout: timeout, last: last)
            }
            try? await clock.sleep(for: interval)
        }
    }
}

/// The bridge did not answer `/readyz` with 200 in time.
public struct ReadinessTimedOut: Error, Sendable, CustomStringConvertible {
    /// The readiness URL asked.
    public var url: String
    /// How long it was asked for.
    public var timeout: Duration
    /// The last answer, or why there was none.
    public var last: String

    public var description: String {
        "\(url) did not answer 200 within \(DurationText.format(timeout.millis)): \(last)"
    }
}
