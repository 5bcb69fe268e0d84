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
/// With Android in the run, an Android activity's messages take the same path beside the pushes
/// (a ``ReleaseQueue`` each, one limit for both), and a message waiting for its slot under the
/// app's update rate is a deadline like the engines' own.
///
/// **Concurrency.** A value owned by the run's task. Answers arrive on NIO threads through the
/// link's ``FreedActivities`` and wake the loop through its ``ReleaseGate``.
struct VirtualRelease {
    private let context: LoadRunContext
    private let link: NetworkLink
    private let maxInFlight: Int
    private let bufferLimit: Int
    /// Whether each activity has a push or message out.
    private var busy: [Bool]
    private var pushes = ReleaseQueue<Push>()
    private var messages = ReleaseQueue<AndroidMessage>()
    /// Which goes first when both have one ready: they take turns.
    private var androidsTurn = false
    /// Pushes and messages produced and not yet released.
    private var buffered = 0
    private var inFlight = 0
    private var batch: [Push] = []
    private var messageBatch: [AndroidMessage] = []
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
            if link.configurationError != nil { break }
            if !cutShort, context.timeIsUp(began) { cutShort = true }
            if !cutShort, buffered < bufferLimit, let deadline = sink.nextDeadline(&run) {
                produce(&run, until: deadline, sink: &sink)
                continue
            }
            let idle = inFlight == 0 && !pushes.hasReady && !messages.hasReady
            if idle, cutShort || sink.nextDeadline(&run) == nil || buffered > 0 { break }
            await link.gate.wait(since: seen)
        }
        return cutShort
    }

    /// Frees the activities whose push or message was answered, moving each one's next up.
    private mutating func takeAnswers() {
        link.freed.take(into: &freedBatch)
        for activity in freedBatch {
            inFlight -= 1
            let moved = link.isAndroid(activity) ? messages.advance(activity) : pushes.advance(activity)
            if !moved { busy[activity] = false }
        }
    }

    /// Releases ready pushes and messages, in turns, while fewer than the limit are out.
    private mutating func releaseReady() {
        while inFlight < maxInFlight {
            if androidsTurn, let message = messages.next() {
                release(message)
            } else if let push = pushes.next() {
                release(push)
            } else if let message = messages.next() {
                release(message)
            } else {
                break
            }
            androidsTurn.toggle()
            buffered -= 1
        }
    }

    private mutating func release(_ push: Push) {
        let now = MicroClock.now()
        link.recorder.released(push, intendedMicros: now, now: now)
        inFlight += 1
        if link.delivery.stopReason(for: push.activity) != nil {
            // The target stopped this activity (410, bad token): the delivery would drop the
            // push silently, so it is accounted as dropped and the activity moves on. The gate
            // is rung as an answer rings it: when every activity is stopped, no answer will.
            link.freed.append(push.activity)
            link.gate.signal()
        } else {
            link.delivery.submit(link.prepare(push))
        }
    }

    private mutating func release(_ message: AndroidMessage) {
        let now = MicroClock.now()
        link.recorder.released(activity: message.activity, sequence: message.sequence, intendedMicros: now, now: now)
        inFlight += 1
        if let android = link.android, android.stopReason(for: message.activity) == nil {
            android.submit(message)
        } else {
            // The app instance is gone (UNREGISTERED): dropped, as a stopped iOS activity's push.
            link.freed.append(message.activity)
            link.gate.signal()
        }
    }

    /// Produces a slice of what is due at `deadline`: with every activity due at the same
    /// instant, producing them all at once would buffer a push (and its payload) per activity.
    private mutating func produce(_ run: inout ScenarioRun, until deadline: Millis, sink: inout CollectingSink) {
        run.run(until: deadline, wakingAtMost: bufferLimit - buffered, into: &sink)
        sink.take(into: &batch)
        buffered += pushes.add(movingAll: &batch, activity: \.activity, busy: &busy)
        if sink.android != nil {
            sink.android?.release(until: deadline)
            sink.android?.take(into: &messageBatch)
            buffered += messages.add(movingAll: &messageBatch, activity: \.activity, busy: &busy)
        }
        context.board.post(partition: 0, produced: sink.tally.counts.produced, clock: deadline)
    }
}
