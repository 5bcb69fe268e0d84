import Foundation
import Liveline
import LivelineAPNs
import Logging
import Synchronization

/// Where sending stops when APNs refuses the setup (`AnswerPolicy`'s `stop`): one app (its
/// topic) in one environment, device pushes and broadcasts apart (a key without the broadcast
/// capability still sends to tokens). A revoked sandbox key does not halt production.
public struct APNsScope: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The environment the pushes go to.
    public var environment: APNsEnvironment
    /// The `apns-topic` (`<bundle id>.push-type.liveactivity`); empty when the push has none.
    public var topic: String
    /// Broadcasts to channels, not pushes to tokens.
    public var broadcast: Bool

    /// The scope of pushes to `topic` (nil: none) in `environment`, broadcasts or not.
    public init(environment: APNsEnvironment, topic: String?, broadcast: Bool = false) {
        self.environment = environment
        self.topic = topic ?? ""
        self.broadcast = broadcast
    }

    /// The app's bundle id (the topic without its suffix).
    public var app: String { topic.isEmpty ? "(no topic)" : LiveActivityTopic.bundleID(ofTopic: topic) }

    public var description: String { "\(app) in \(environment.rawValue)\(broadcast ? " (broadcasts)" : "")" }

    public static func < (a: APNsScope, b: APNsScope) -> Bool {
        (a.environment, a.topic, a.broadcast ? 1 : 0) < (b.environment, b.topic, b.broadcast ? 1 : 0)
    }
}

/// A scope that sending is halted for, and why.
public struct APNsHalt: Sendable, Hashable {
    /// What is halted.
    public var scope: APNsScope
    /// What APNs said of the setup, and how to fix it.
    public var problem: ConfigurationProblem
    /// When APNs first refused the setup.
    public var since: Millis
    /// When a waiting push may go as the next probe.
    public var nextProbe: Millis
    /// Probes sent since, all refused (or unanswered).
    public var probes: Int
}

/// Which apps and environments the bridge may send to now, and the probes that find out when
/// a halted one may send again. The outbox and fan-out senders send every push through it
/// (`send(_:clients:cutoff:now:)`).
///
/// - **Open**: every push goes.
/// - **Unverified** (at start, and after new credentials): the first push goes alone, and the
///   rest of its pass follow once it is answered, so a bridge started with a wrong key sends one
///   request, not a pass of hundreds.
/// - **Halted** (a configuration error, `AnswerPolicy`'s `stop`): pushes wait, their attempts
///   unchanged (the outbox keeps them, due at the next probe; fan-out followers wait as
///   exceptions; a fan-out whose app is halted in every environment hands out no ranges). Once
///   per ``probeInterval`` one waiting push goes as the probe; an answer that shows APNs took
///   the credentials and the app (delivered, or refused for that token or push alone) opens the
///   scope, and the rest go at once. A probe is a push that is owed anyway: the oldest of its
///   activity, in order, sent as it would be, so it cannot put anything on a device that should
///   not be there, and a refused probe is held again like the others.
///
/// While anything is halted `/readyz` answers 503 with the reason and the fix,
/// `liveline_apns_halted{environment,reason}` counts the halted apps, and one log line a minute
/// (``remind(now:)``) says so.
public final class APNsHalts: Sendable {
    /// How long a push held while another probes waits before it is looked at again.
    static let probeWait: Millis = 1000

    /// How long a halted scope waits between probes.
    public let probeInterval: Duration
    private let logger: Logger
    private let observer: (any APNsHaltObserver)?
    private let book = Mutex(Book())

    private enum State: Sendable {
        case open
        /// A push is out as the probe; the halt it probes, if it was halted.
        case probing(APNsHalt?)
        case halted(APNsHalt)
    }

    private struct Book: Sendable {
        /// Scopes not here are unverified.
        var states: [APNsScope: State] = [:]
        /// Senders waiting for a scope's probe to be answered.
        var waiters: [APNsScope: [CheckedContinuation<Void, Never>]] = [:]
        /// What was halted when new credentials came (``reset()``): unverified now, and reported
        /// as resumed, or halted anew, at the first answer.
        var reloaded: [APNsScope: APNsHalt] = [:]
        /// When each halted scope's last refusal came, on the monotonic clock: the next probe
        /// waits a whole interval after it in real time, whatever clock the senders pass.
        var refusedAt: [APNsScope: ContinuousClock.Instant] = [:]
        /// Counts ``reset()``s: an answer to a request sent before the last one (with the old
        /// credentials) changes nothing.
        var generation = 0
        var lastReminder: Millis = 0

        /// Ends the wait of every sender waiting for `scope`'s probe.
        mutating func wake(_ scope: APNsScope) -> [CheckedContinuation<Void, Never>] {
            waiters.removeValue(forKey: scope) ?? []
        }
    }

    /// Every scope open until APNs refuses it; probes every `probeInterval`, logs a halt to
    /// `logger` (once a minute while it lasts) and tells `observer`, for metrics.
    public init(
        probeInterval: Duration = APNsSettings.standardProbeInterval, logger: Logger,
        observer: (any APNsHaltObserver)? = nil
    ) {
        self.probeInterval = probeInterval
        self.logger = logger
        self.observer = observer
    }

    /// What may happen to the pushes of a scope now.
    enum Admission: Equatable {
        case send
        /// Send one alone; the others wait for its answer.
        case probe
        /// Hold them until `until`.
        case hold(until: Millis, halt: APNsHalt?)
    }

    /// What may happen to `scope`'s pushes at `now`; nil while another sender's probe of it is
    /// out (``waitForProbe(_:)``). A `.probe` answer makes the caller the prober until
    /// ``settle(_:answer:probe:now:generation:)`` or ``abandonProbe(_:)``.
    func admit(_ scope: APNsScope, now: Millis) -> Admission? {
        book.withLock { book in
            switch book.states[scope] {
            case .open?:
                return .send
            case nil:
                book.states[scope] = .probing(nil)
                return .probe
            case .probing?:
                return nil
            case .halted(let halt)?:
                guard now >= halt.nextProbe else { return .hold(until: halt.nextProbe, halt: halt) }
                if let refused = book.refusedAt[scope] {
                    let left = probeInterval - (ContinuousClock.now - refused)
                    if left > .zero { return .hold(until: now + max(1, left.millis), halt: halt) }
                }
                book.states[scope] = .probing(halt)
                return .probe
            }
        }
    }

    /// Returns once no probe of `scope` is out (at once when none is): a round trip to APNs.
    func waitForProbe(_ scope: APNsScope) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let waiting = book.withLock { book in
                guard case .probing? = book.states[scope] else { return false }
                book.waiters[scope, default: []].append(waiter)
                return true
            }
            if !waiting { waiter.resume() }
        }
    }

    /// The number of ``reset()``s so far: pass it to ``settle(_:answer:probe:now:generation:)``
    /// with the answer to a request sent now.
    var generation: Int { book.withLock { $0.generation } }

    /// Whether `scope` is open.
    func isOpen(_ scope: APNsScope) -> Bool {
        book.withLock { if case .open? = $0.states[scope] { true } else { false } }
    }

    /// Records what APNs answered a push to `scope` (the probe, with `probe`): a configuration
    /// error halts it; an answer that shows the setup is right opens it; an outage changes
    /// nothing but ends a probe, which counts for its interval.
    func settle(_ scope: APNsScope, answer: PushServiceAnswer, probe: Bool, now: Millis, generation: Int? = nil) {
        enum Change { case none, halted(APNsHalt, first: Bool), resumed(APNsHalt) }
        var waiters: [CheckedContinuation<Void, Never>] = []
        defer { for waiter in waiters { waiter.resume() } }
        let change: Change = book.withLock { book in
            if probe { waiters = book.wake(scope) }
            if let generation, generation != book.generation { return .none }
            let previous = book.states[scope]
            let reloaded = book.reloaded.removeValue(forKey: scope)
            let known: APNsHalt? =
                switch previous {
                case .halted(let halt)?: halt
                case .probing(let halt)?: halt
                default: nil
                }
            if case .misconfigured(let problem) = answer {
                var halt =
                    known
                    ?? APNsHalt(scope: scope, problem: problem, since: now, nextProbe: now, probes: 0)
                halt.problem = problem
                if probe || halt.nextProbe <= now { halt.nextProbe = now + probeInterval.millis }
                if probe { halt.probes += 1 }
                if probe || known == nil { book.refusedAt[scope] = .now }
                book.states[scope] = .halted(halt)
                if known == nil { book.lastReminder = now }
                return known == nil ? .halted(halt, first: true) : (probe ? .halted(halt, first: false) : .none)
            }
            if answer.provesSetup {
                book.refusedAt[scope] = nil
                book.states[scope] = .open
                return (known ?? reloaded).map { .resumed($0) } ?? .none
            }
            // An outage proves nothing: a halted scope's probe ends and counts for its interval;
            // an unverified one opens (the outage's retries are the policy's, as at any time,
            // and the first answer that refuses the setup halts it).
            guard probe else { return .none }
            if var halt = known {
                halt.probes += 1
                halt.nextProbe = now + probeInterval.millis
                book.refusedAt[scope] = .now
                book.states[scope] = .halted(halt)
            } else {
                book.states[scope] = .open
            }
            return .none
        }
        switch change {
        case .none:
            break
        case .halted(let halt, let first):
            if first {
                // No status: no answer came (TLS, HTTP/2), so APNs could not refuse anything.
                logger.error(
                    "\(halt.problem.status == nil ? "APNs cannot be reached as configured" : "APNs refused the setup"): sending to \(scope) is halted; pushes wait, and one goes as a probe every \(probeInterval)",
                    metadata: Self.metadata(halt))
            }
            observer?.apnsProbe(environment: scope.environment, result: first ? "halted" : "refused")
            observer?.apnsHalted(halted)
        case .resumed(let halt):
            logger.notice(
                "APNs took the setup again: sending to \(scope) resumes",
                metadata: Self.metadata(halt).merging(["probes": "\(halt.probes)"]) { $1 })
            observer?.apnsProbe(environment: scope.environment, result: "resumed")
            observer?.apnsHalted(halted)
        }
    }

    /// Halts `scope` for `problem` at `now` (a setup problem `AnswerPolicy` found in an answer
    /// that was no configuration error by itself: a provider token expired again right after its
    /// renewal); returns when its next probe may go.
    func halt(_ scope: APNsScope, problem: ConfigurationProblem, now: Millis) -> Millis {
        settle(scope, answer: .misconfigured(problem), probe: false, now: now)
        return halted.first { $0.scope == scope }?.nextProbe ?? now + Self.probeWait
    }

    /// The probe of `scope` was not sent, or not answered (a stop's cutoff): it is owed again.
    func abandonProbe(_ scope: APNsScope) {
        let waiters = book.withLock { book in
            switch book.states[scope] {
            case .probing(let halt?)?: book.states[scope] = .halted(halt)
            case .probing(nil)?: book.states.removeValue(forKey: scope)
            default: break
            }
            return book.wake(scope)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// New credentials were loaded: every scope is unverified again (its next push probes at
    /// once); one that was halted is reported as resumed when APNs takes that push.
    public func reset() {
        let (had, waiters) = book.withLock { book in
            defer {
                for (scope, state) in book.states {
                    switch state {
                    case .halted(let halt), .probing(let halt?): book.reloaded[scope] = halt
                    default: break
                    }
                }
                book.states = [:]
                book.waiters = [:]
                book.refusedAt = [:]
                book.generation += 1
            }
            return (!book.states.isEmpty, book.waiters.values.flatMap { $0 })
        }
        for waiter in waiters { waiter.resume() }
        if had { observer?.apnsHalted([]) }
    }

    /// What is halted now, in scope order.
    public var halted: [APNsHalt] {
        book.withLock { book in
            book.states.values.compactMap { state -> APNsHalt? in
                switch state {
                case .halted(let halt): halt
                case .probing(let halt): halt
                case .open: nil
                }
            }.sorted { $0.scope < $1.scope }
        }
    }

    /// The topics halted in every one of `environments` (token pushes), whose probe is not due
    /// at `now`: their fan-outs hand out no ranges.
    func haltedTopics(in environments: [APNsEnvironment], now: Millis) -> [String] {
        let halts = halted.filter { !$0.scope.broadcast && now < $0.nextProbe }
        var topics: [String: Set<APNsEnvironment>] = [:]
        for halt in halts { topics[halt.scope.topic, default: []].insert(halt.scope.environment) }
        return topics.filter { !environments.isEmpty && Set(environments).isSubset(of: $0.value) }.keys.sorted()
    }

    /// Logs one line about what is halted, if anything is and a minute has passed since the last.
    public func remind(now: Millis) {
        let due: [APNsHalt]? = book.withLock { book in
            let halts = book.states.values.contains { if case .open = $0 { false } else { true } }
            guard halts, now - book.lastReminder >= 60_000 else { return nil }
            book.lastReminder = now
            return []
        }
        guard due != nil else { return }
        let halts = halted
        guard !halts.isEmpty else { return }
        logger.error(
            "APNs sending is still halted for \(halts.map(\.scope.description).joined(separator: ", ")): fix the setup; each halted app resumes when its probe succeeds",
            metadata: [
                "halted": .array(
                    halts.map { halt in
                        .dictionary(Self.metadata(halt).merging(["probes": "\(halt.probes)"]) { $1 })
                    })
            ])
    }

    static func metadata(_ halt: APNsHalt) -> Logger.Metadata {
        [
            "environment": "\(halt.scope.environment.rawValue)", "app": "\(halt.scope.app)",
            "reason": "\(halt.problem.reason)", "status": "\(halt.problem.status.map(String.init) ?? "none")",
            "fix": "\(halt.problem.fix)", "since": "\(UTCTime.format(halt.since))",
        ]
    }
}

/// Told when what is halted changes, and of each probe (``BridgeMetrics`` counts them).
public protocol APNsHaltObserver: Sendable {
    /// What is halted now.
    func apnsHalted(_ halts: [APNsHalt])
    /// A probe's (or the first refusal's) result: `halted`, `refused` or `resumed`.
    func apnsProbe(environment: APNsEnvironment, result: String)
}
