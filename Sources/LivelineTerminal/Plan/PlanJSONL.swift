import Liveline

/// A plan as JSON Lines: one object per push, for machines.
///
/// Each line has, in this order: `activity`, `offset` (seconds after the scenario start),
/// `time` (ISO-8601), `event`, `priority`, `headers` (the APNs headers), `payload` (the exact
/// `aps` object, byte for byte as it would be sent), `bytes` and `reason`. A push the engine
/// refused has `"rejected"` instead of being sent. The field set is stable; new fields are only
/// ever added at the end. After a renewal (``Renewal``), each push ends with `"generation"`:
/// which of the story's activities on the device it is for (a renewal's start is for the
/// successor, its end for the predecessor).
///
/// With Android among the platforms, each FCM message is a line too (``androidLine(_:)``), and
/// with both every line ends with `"platform"`. Call ``finish()`` after the run for the Android
/// messages still waiting for their slot.
public struct PlanJSONL: PushSink {
    public let scenario: Scenario
    public let start: Millis
    public let platforms: Set<Platform>
    /// Called with each line, without its newline.
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

    public mutating func receive(_ push: Push, from activity: ActivityEngine) {
        if platforms.contains(.ios) { line(push, activity, rejected: nil) }
        if platforms.contains(.android) {
            for message in android.receive(push, from: activity) { androidLine(message) }
        }
    }

    /// Writes the Android messages still waiting for their slot.
    public mutating func finish() {
        for message in android.finish() { androidLine(message) }
    }

    public mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        line(push, activity, rejected: problem.description)
    }

    private mutating func line(_ push: Push, _ activity: ActivityEngine, rejected: String?) {
        var writer = beginLine(
            activity: activity.program.spec.name, time: push.time, event: push.event, capacity: push.payload.count + 512
        )
        writer.int(push.priority.apnsValue)
        writer.raw(#","headers":{"#)
        for (i, field) in PushHeaders(push, topic: scenario.topic).fields.enumerated() {
            if i > 0 { writer.raw(UInt8(ascii: ",")) }
            writer.string(field.name)
            writer.raw(UInt8(ascii: ":"))
            writer.string(field.value)
        }
        writer.raw(#"},"payload":"#)
        writer.raw(push.payload)
        Self.writeSize(push.payload.count, reason: push.reason.description, into: &writer)
        if let rejected {
            writer.raw(#","rejected":"#)
            writer.string(rejected)
        }
        if platforms.count > 1 { writer.raw(#","platform":"ios""#) }
        if push.generation > 0 {
            writer.raw(#","generation":"#)
            writer.int(push.generation)
        }
        writer.raw(UInt8(ascii: "}"))
        emit(String(decoding: writer.bytes, as: UTF8.self))
    }

    /// A line's writer with the fields every line starts with, for either platform: `activity`,
    /// `offset`, `time`, `event`, then the key `priority`, whose value is the platform's.
    func beginLine(activity: String, time: Millis, event: PushEvent, capacity: Int) -> JSONWriter {
        var writer = JSONWriter(capacity: capacity)
        writer.raw(#"{"activity":"#)
        writer.string(activity)
        writer.raw(#","offset":"#)
        writer.seconds(millis: time - start)
        writer.raw(#","time":"#)
        writer.string(UTCTime.format(time))
        writer.raw(#","event":"#)
        writer.string(event.rawValue)
        writer.raw(#","priority":"#)
        return writer
    }

    /// `bytes` (of the payload, or of the data message) and `reason`, which every line has after
    /// what it sends.
    static func writeSize(_ bytes: Int, reason: String, into writer: inout JSONWriter) {
        writer.raw(#","bytes":"#)
        writer.int(bytes)
        writer.raw(#","reason":"#)
        writer.string(reason)
    }
}
