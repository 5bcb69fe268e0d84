import Liveline

/// The virtual clock against a network target: deadline after deadline, as fast as the target
/// answers.
///
/// An activity has at most one push out at a time; its next push waits (in order) until the
/// previous one is answered, as a story played in real time would space them. Otherwise the
/// virtual clock would hand the delivery a whole match at once and measure nothing but
/// coalescing. At most ``LoadConfiguration/maxInFlight`` pushes are out, and the scheduler stops
/// producing while too many wait: it produces a slice at a time, even of one instant, so the
/// buffer stays bounded however many activities share a deadline.
///
/// **Concurrency.** A value owned by the run's task. Answers arrive on NIO threads through the
/// link's ``FreedActivities`` and wake the loop through its ``ReleaseGate``.
struct VirtualRelease {
    private let context: LoadRunContext
    private let link: NetworkLink
    private let maxInFlight: Int
    private let bufferLimit: Int
    /// Whether each activity has a push out.
    private var busy: [Bool]
    /// Pushes of busy activities, in order, waiting for the one out.
    private var queued: [Int: [Push]] = [:]
    /// Pushes free to go, from `readyHead` on.
    private var ready: [Push] = []
    private var readyHead = 0
    /// Pushes produced and not yet released.
    private var buffered = 0
    private var inFlight = 0
    private var batch: [Push] = []
    private var freedBatch: [Int] = []

    init(context: LoadRunContext, link: NetworkLink, activities: Int) {
        self.context = context
        self.link = link
        maxInFlight = context.configuration.maxInFlight
        bufferLimit = max(10_000, maxInFlight * 8)
        busy = [Bool](repeating: false, count: activities)
    }

    /// Plays `run` to its end or the time limit. Returns whether the time limit cut it short.
    mutating func play(_ run: inout ScenarioRun, sink: inout CollectingSink, began: Int64) async -> Bool {
        var cutShort = false
        while true {
            let seen = link.gate.generation
            takeAnswers()
            releaseReady()
            if link.delivery.configurationError != nil { break }
            if !cutShort, context.timeIsUp(began) { cutShort = true }
            if !cutShort, buffered < bufferLimit, let deadline = run.nextDeadline() {
                produce(&run, until: deadline, sink: &sink)
                continue
            }
            let idle = inFlight == 0 && readyHead == ready.count
            if idle, cutShort || run.nextDeadline() == nil || buffered > 0 { break }
            await link.gate.wait(since: seen)
        }
        return cutShort
    }

    /// Frees the activities whose push was answered, moving each one's next push up.
    private mutating func takeAnswers() {
        link.freed.take(into: &freedBatch)
        for activity in freedBatch {
            inFlight -= 1
            if var list = queued[activity], !list.isEmpty {
                ready.append(list.removeFirst())
                queued[activity] = list.isEmpty ? nil : list
            } else {
                busy[activity] = false
            }
        }
    }

    /// Releases ready pushes while fewer than the limit are out.
    private mutating func releaseReady() {
        while inFlight < maxInFlight, readyHead < ready.count {
            release(ready[readyHead])
            readyHead += 1
            buffered -= 1
        }
        if readyHead > 4096, readyHead * 2 > ready.count {
            ready.removeFirst(readyHead)
            readyHead = 0
        }
    }

    private mutating func release(_ push: Push) {
        let now = MicroClock.now()
        link.recorder.released(push, intendedMicros: now, now: now)
        inFlight += 1
        if link.delivery.stopReason(for: push.activity) != nil {
            // The target stopped this activity (410, bad token): the delivery would drop the
            // push silently, so it is accounted as dropped and the activity moves on.
            link.freed.append(push.activity)
        } else {
            link.delivery.submit(link.prepare(push))
        }
    }

    /// Produces a slice of what is due at `deadline`: with every activity due at the same
    /// instant, producing them all at once would buffer a push (and its payload) per activity.
    private mutating func produce(_ run: inout ScenarioRun, until deadline: Millis, sink: inout CollectingSink) {
        run.run(until: deadline, wakingAtMost: bufferLimit - buffered, into: &sink)
        sink.take(into: &batch)
        for push in batch {
            buffered += 1
            if busy[push.activity] {
                queued[push.activity, default: []].append(push)
            } else {
                busy[push.activity] = true
                ready.append(push)
            }
        }
        context.board.post(partition: 0, produced: sink.tally.counts.produced, clock: deadline)
    }
}
