import Liveline
import LivelineAPNs

/// Plays a load test and returns what it measured, a ``LoadResult``.
///
/// The configuration picks one of three modes, each a type of its own:
/// - ``DiscardVirtualRun``: discard with the virtual clock, the engines alone on every core.
/// - ``DiscardRealTimeRun``: discard with the real clock; latency is the engine's own lateness.
/// - ``NetworkRun``: a network target with either clock, through ``PushDelivery``.
///
/// Each builds one engine per activity (or per channel in broadcast mode), drives them from its
/// scheduler, and assembles its result through ``LoadResultBuilder``.
///
/// **Concurrency.** ``run()`` is called once, from one task. ``progress()`` may be called from
/// any task while it runs. The modes share only the context's locked progress board and recorder.
public final class LoadRunner: Sendable {
    public let configuration: LoadConfiguration
    private let context: LoadRunContext

    public init(configuration: LoadConfiguration) throws(LoadError) {
        try configuration.validate()
        self.configuration = configuration
        let start = configuration.start ?? WallClock().now()
        let partitions = Self.usesPartitions(configuration) ? configuration.threads : 1
        let longest = configuration.mix.entries.flatMap(\.programs).map { $0.offset + ($0.storyLength ?? 0) }.max() ?? 0
        let lastArrival = configuration.arrivals.lastOffset(
            total: configuration.broadcast?.channels ?? configuration.activities)
        context = LoadRunContext(
            configuration: configuration, start: start,
            board: ProgressBoard(partitions: partitions, startClock: start, endClock: start + lastArrival + longest))
    }

    private static func usesPartitions(_ configuration: LoadConfiguration) -> Bool {
        if case .discard = configuration.target, configuration.clock == .virtual { return true }
        return false
    }

    /// The test's clock start, UNIX milliseconds.
    public var start: Millis { context.start }

    /// Where the run is now.
    public func progress() -> LoadProgress {
        var progress = LoadProgress()
        let (produced, fraction) = context.board.read()
        progress.produced = produced
        progress.submitted = produced
        progress.fraction = fraction
        if let began = context.runStart.value { progress.elapsedMillis = (MicroClock.now() - began) / 1000 }
        if let recorder = context.recorder.value {
            let snapshot = recorder.snapshot()
            progress.networked = true
            progress.submitted = snapshot.submitted
            progress.completed = snapshot.completed
            progress.inFlight = snapshot.open
            progress.errors = snapshot.errors
            progress.platforms = zip([Platform.ios, .android], snapshot.platforms).map {
                LoadProgress.PlatformProgress(platform: $0, completed: $1.completed, errors: $1.errors)
            }
        }
        return progress
    }

    /// Plays the test to the end (or ``LoadConfiguration/timeLimit``) and returns what it measured.
    public func run() async throws(LoadError) -> LoadResult {
        switch configuration.target {
        case .discard where configuration.clock == .virtual:
            return await DiscardVirtualRun(context: context).run()
        case .discard:
            return await DiscardRealTimeRun(context: context).run()
        case .endpoint(let endpoint, let key, _):
            return try await NetworkRun(context: context, endpoint: endpoint, signingKey: key).run()
        }
    }

    /// The engine for each copy this run plays, with run ids from 0.
    func makeEngines(copies: [Int]) -> [ActivityEngine] {
        context.makeEngines(copies: copies)
    }
}
