import Liveline

/// The Android side of a networked run's sink: each Android activity's decisions turned into FCM
/// messages by Android's rules, as they are decided (the `android:` templates read the engine's
/// state of that moment), and kept until the runner releases them.
///
/// Each activity is one app instance on one phone, so each has its own ``AndroidPlatform``: its
/// priority by what the user sees, its ttl, its collapse key while FCM's allowance lasts, and the
/// app's update rate, which may hold a message for its slot (``nextRelease``, ``release(until:)``).
/// The iOS budget is not Android's rule: the engine still decides when, and the platform decides
/// how.
///
/// A value owned by the runner's task.
struct AndroidMessages {
    /// Whether each activity (by run id) plays on Android.
    let isAndroid: [Bool]
    private var platforms: [Int: AndroidPlatform] = [:]
    /// Activities with a message waiting for its slot, and when the earliest goes.
    private var held: [Int: Millis] = [:]
    private(set) var pending: [AndroidMessage] = []
    /// What the messages were: counted as they are made.
    private(set) var counts = LoadResult.PlatformResult(latency: .init(EncodedHistogram.emptyLatencyHistogram()))

    init(isAndroid: [Bool]) {
        self.isAndroid = isAndroid
    }

    /// Whether `activity` plays on Android.
    func plays(_ activity: Int) -> Bool { isAndroid.indices.contains(activity) && isAndroid[activity] }

    /// Takes a decision of an Android activity, right after the engine made it.
    mutating func receive(_ push: Push, from engine: ActivityEngine) {
        // In place in the table: a copy out and back would copy the platform's buffers each time.
        let messages = platforms[push.activity, default: AndroidPlatform()].receive(push, from: engine)
        add(messages)
        held[push.activity] = platforms[push.activity]?.nextRelease
    }

    /// When the earliest message waiting for its slot goes, if one does.
    var nextRelease: Millis? { held.values.min() }

    /// The messages whose slot came by `now`.
    mutating func release(until now: Millis) {
        guard let next = nextRelease, next <= now else { return }
        for (activity, time) in held where time <= now {
            guard let messages = platforms[activity]?.release(until: now) else { continue }
            add(messages)
            held[activity] = platforms[activity]?.nextRelease
        }
    }

    /// Moves the messages made so far into `batch` (emptied first).
    mutating func take(into batch: inout [AndroidMessage]) {
        batch.removeAll(keepingCapacity: true)
        swap(&batch, &pending)
    }

    private mutating func add(_ messages: [AndroidMessage]) {
        for message in messages {
            counts.produced += 1
            if message.priority == .high { counts.highPriority += 1 } else { counts.normalPriority += 1 }
            let size = message.data.byteCount
            counts.bytes += size
            counts.largest = max(counts.largest, size)
            if message.reason.paced > 0 { counts.paced += 1 }
            if message.reason.decisions > 1 { counts.merged += 1 }
            if message.collapseKey == nil { counts.withoutCollapseKey += 1 }
            pending.append(message)
        }
    }
}
