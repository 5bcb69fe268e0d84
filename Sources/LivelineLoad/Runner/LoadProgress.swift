import Liveline
import NIOConcurrencyHelpers

/// A moment of a running load test, for the live progress line.
public struct LoadProgress: Sendable, Equatable {
    /// Wall time since the run started.
    public var elapsedMillis: Millis = 0
    /// Pushes the engines produced.
    public var produced = 0
    /// Pushes handed to the target (equal to ``produced`` for discard).
    public var submitted = 0
    /// Answers received (delivered or rejected).
    public var completed = 0
    public var inFlight = 0
    public var errors = 0
    /// How far through the stories the run is, 0 to 1, when known.
    public var fraction: Double?
    /// Whether pushes go over the network (so in-flight and errors mean something).
    public var networked = false
    /// With Android in the run: each platform's answers and errors so far (iOS first).
    public var platforms: [PlatformProgress] = []

    /// One platform's part of the progress.
    public struct PlatformProgress: Sendable, Equatable {
        /// iOS or Android.
        public var platform: Platform
        /// Answers received (delivered or rejected).
        public var completed: Int
        /// Pushes or messages that did not get through, and activities stopped.
        public var errors: Int

        /// A platform's progress with the counts given.
        public init(platform: Platform, completed: Int, errors: Int) {
            self.platform = platform
            self.completed = completed
            self.errors = errors
        }
    }

    public init() {}

    /// Seconds left at the pace so far, when it can be told.
    public var etaMillis: Millis? {
        guard let fraction, fraction > 0.01, fraction < 1, elapsedMillis > 500 else { return nil }
        return Millis(Double(elapsedMillis) * (1 - fraction) / fraction)
    }
}

/// Where the engine loop and the partitions post their progress, read by whoever draws it.
///
/// **Concurrency.** Written a few times a second per partition (never per push) and read by the
/// progress ticker; one lock.
final class ProgressBoard: Sendable {
    private struct State {
        var produced: [Int]
        var clock: [Millis]
    }

    private let box: NIOLockedValueBox<State>
    let startClock: Millis
    let endClock: Millis

    init(partitions: Int, startClock: Millis, endClock: Millis) {
        box = NIOLockedValueBox(
            State(
                produced: Array(repeating: 0, count: partitions), clock: Array(repeating: startClock, count: partitions)
            ))
        self.startClock = startClock
        self.endClock = endClock
    }

    func post(partition: Int, produced: Int, clock: Millis) {
        box.withLockedValue { state in
            state.produced[partition] = produced
            state.clock[partition] = max(state.clock[partition], clock)
        }
    }

    func read() -> (produced: Int, fraction: Double?) {
        box.withLockedValue { state in
            let produced = state.produced.reduce(0, +)
            guard endClock > startClock, let slowest = state.clock.min() else { return (produced, nil) }
            return (produced, min(1, max(0, Double(slowest - startClock) / Double(endClock - startClock))))
        }
    }
}
