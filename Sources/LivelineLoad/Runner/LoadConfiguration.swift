import Liveline
import LivelineAPNs
import LivelineFCM

/// What to play, where to send it and how fast: everything ``LoadRunner`` needs.
public struct LoadConfiguration: Sendable {
    /// The clock that drives the engines.
    public enum Clock: Sendable, Hashable {
        /// As fast as possible. Against a network target, pushes are released as fast as
        /// back-pressure allows (``LoadConfiguration/maxInFlight``).
        case virtual
        /// Wall time, stories compressed by `speed`.
        case real(speed: Double)
    }

    /// Where pushes go.
    public enum Target: Sendable {
        /// Nowhere: the engines and the encoder alone.
        case discard
        /// An APNs endpoint: Apple's, a mock elsewhere, or the embedded mock the CLI started
        /// (`name` is what reports call it: `mock` or the URL).
        case endpoint(APNsEndpoint, signingKey: SigningKey?, name: String)

        public var name: String {
            switch self {
            case .discard: "discard"
            case .endpoint(_, _, let name): name
            }
        }
    }

    /// Where Android's messages go (``platforms`` with Android): FCM, a mock elsewhere, or the
    /// embedded mock FCM the CLI started.
    public struct FCMDestination: Sendable {
        /// The client's configuration: the service account, the URL, the certificates to trust.
        public var client: FCMClient.Configuration
        /// The Firebase project messages are sent for.
        public var project: String
        /// What reports call it: `mock` or the URL.
        public var name: String

        /// A destination with the parts given.
        public init(client: FCMClient.Configuration, project: String, name: String) {
            self.client = client
            self.project = project
            self.name = name
        }
    }

    public var mix: ScenarioMix
    /// Activities in the whole test (all shards).
    public var activities: Int
    public var arrivals: Arrivals = .allAtOnce
    /// `--seed`, replacing each file's seed (already applied to ``mix``'s programs); it also
    /// seeds generated tokens and channel ids.
    public var seed: UInt64?
    public var shard: Shard = .whole
    public var clock: Clock = .virtual
    public var target: Target = .discard
    public var tokens: TokenSource = .generated(seed: 0)
    /// Broadcast mode: activities follow channels, one push per channel.
    public var broadcast: BroadcastPlan?
    /// Which activities play on Android: each on its platform's path, by its platform's rules.
    public var platforms = PlatformMix.iosOnly
    /// Where Android's messages go; needed when ``platforms`` has Android.
    public var fcm: FCMDestination?
    /// The most pushes handed to the target and not yet answered.
    public var maxInFlight = 2000
    /// HTTP/2 connections to the target.
    public var connections = 2
    /// Engine threads for `--target discard --clock virtual` (each plays a disjoint part).
    public var threads = 1
    /// Stop releasing pushes after this much wall time; nil plays every story to its end.
    public var timeLimit: Duration?
    /// When the test's clock starts, UNIX milliseconds; nil takes the wall clock at the start.
    public var start: Millis?
    /// The bundle id (its topic) pushes are sent for; nil takes the first scenario's.
    public var bundleID: String?
    public var retry = RetryPolicy()
    /// Per-interval series resolution.
    public var interval: Duration = .seconds(1)

    public init(mix: ScenarioMix, activities: Int) {
        self.mix = mix
        self.activities = activities
    }

    /// The copies this run plays: activities in per-token mode, channels in broadcast mode.
    public var playedCopies: StrideTo<Int> {
        shard.copies(of: broadcast?.channels ?? activities)
    }

    /// Checks the combination of options.
    public func validate() throws(LoadError) {
        guard activities >= 1 else {
            throw .invalidSetting(.activities, value: "\(activities)", problem: "must be 1 or more")
        }
        guard activities <= 10_000_000 else {
            throw .invalidSetting(
                .activities, value: "\(activities)",
                problem: "at most 10,000,000 in one process; use {shard} to split a bigger test across machines")
        }
        guard maxInFlight >= 1 else {
            throw .invalidSetting(.maxInFlight, value: "\(maxInFlight)", problem: "must be 1 or more")
        }
        guard (1...64).contains(connections) else {
            throw .invalidSetting(.connections, value: "\(connections)", problem: "must be from 1 to 64")
        }
        guard (1...256).contains(threads) else {
            throw .invalidSetting(.threads, value: "\(threads)", problem: "must be from 1 to 256")
        }
        switch clock {
        case .real(let speed):
            guard speed > 0, speed.isFinite else {
                throw .invalidSetting(.speed, value: "\(speed)", problem: "must be a positive number")
            }
            guard mix.speed == speed else {
                throw .invalidSetting(
                    .speed, value: "\(speed)",
                    problem:
                        "the scenarios were compiled for speed \(mix.speed): build the ScenarioMix with speed: \(speed)"
                )
            }
        case .virtual:
            guard mix.speed == 1 else {
                throw .invalidSetting(
                    .clock, value: "virtual", problem: "plays stories at speed 1; build the ScenarioMix without a speed"
                )
            }
        }
        if let broadcast {
            guard broadcast.channels <= activities else {
                throw .invalidSetting(
                    .channels, value: "\(broadcast.channels)",
                    problem: "more than {activities} \(activities): every channel needs a subscriber")
            }
            if case .discard = target {
            } else {
                let starters = mix.startsByPush
                if !starters.isEmpty {
                    throw .invalidSetting(
                        .broadcast, value: nil,
                        problem:
                            "\(starters.joined(separator: ", ")) starts activities by push, and a broadcast cannot start an activity; use a scenario the app starts, or drop {broadcast}"
                    )
                }
            }
        }
        if platforms.hasAndroid { try validateAndroid() }
        if shard.count > (broadcast?.channels ?? activities) {
            throw .invalidSetting(
                .shard, value: "\(shard)",
                problem: "more shards than \(broadcast == nil ? "activities" : "channels") to split")
        }
    }

    /// With Android in the mix: a network target, no broadcast (Android has none), an FCM
    /// destination, and an `android:` block on every activity the copies play.
    private func validateAndroid() throws(LoadError) {
        if case .discard = target {
            throw .invalidSetting(
                .androidShare, value: "\(platforms.androidShare)",
                problem:
                    "needs a network target: discard plays the engines alone, and Android's messages are made on their way to FCM"
            )
        }
        if broadcast != nil {
            throw .invalidSetting(
                .androidShare, value: "\(platforms.androidShare)",
                problem: "Android Live Updates have no broadcast channels; drop {broadcast} or {android-share}")
        }
        guard fcm != nil else {
            throw .invalidSetting(
                .fcmTarget, value: nil, problem: "Android's messages need somewhere to go: the mock or an FCM URL")
        }
        try validateAndroidBlocks()
    }

    /// With Android in the mix, every activity the copies play has an `android:` block: a check
    /// a front end may make before it starts anything.
    public func validateAndroidBlocks() throws(LoadError) {
        guard platforms.hasAndroid else { return }
        for entry in mix.entries {
            let missing = entry.programs.filter { $0.spec.android == nil }.map(\.name)
            guard missing.isEmpty else {
                throw .invalidFile(
                    location: entry.scenario.file,
                    problem:
                        "\(missing.joined(separator: ", ")) \(missing.count == 1 ? "has" : "have") no android: block, and {android-share} plays copies of every activity on Android; add one (Scenarios/README.md, \"Android\")"
                )
            }
        }
    }

    /// The bundle id pushes go out for.
    public var effectiveBundleID: String { bundleID ?? mix.entries[0].scenario.bundleID }
}
