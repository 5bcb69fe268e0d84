import Foundation
import Liveline

/// The delivery history as `liveline bridge history` prints it for an operator: one line per
/// entry (newest first), then its content-state and, for a fan-out, its failures by reason.
public enum PushHistoryText {
    /// The lines for `records`, in their order: a summary line each (id, time stored, kind,
    /// priority, outcome, APNs' answer or the fan-out's counts, instances, time to the answer),
    /// then the engine's reason, the content-state, the error and a fan-out's failures, indented.
    public static func lines(_ records: [PushRecord]) -> [String] {
        var lines: [String] = []
        for record in records {
            let stored = UTCTime.format(record.storedAt)
            var line =
                "#\(record.id)  \(stored)  \(record.kind.rawValue) p\(record.priority)  \(record.outcome.rawValue)"
            if let renewal = record.renewal { line += "  renewal \(renewal)" }
            if let fanOut = record.fanOut {
                line += "  \(CountText.of(fanOut.sent, "follower")) sent, \(fanOut.failed) failed"
                if fanOut.held > 0 { line += ", \(fanOut.held) held" }
            } else {
                if record.platform == .android { line += "  android (FCM)" }
                if let status = record.status { line += " \(status)" }
                if let reason = record.apnsReason { line += " \(reason)" }
                if record.attempt > 1 { line += " (attempt \(record.attempt))" }
                if let id = record.apnsID { line += record.platform == .android ? "  fcm \(id)" : "  apns-id \(id)" }
            }
            if !record.instances.isEmpty { line += "  by \(record.instances.joined(separator: ", "))" }
            if let answered = record.answeredAt {
                line += "  +\(answered - record.storedAt) ms"
            }
            lines.append(line)
            if !record.reason.isEmpty { lines.append("    why: \(record.reason)") }
            if let state = PushHistoryView.contentState(of: record.payload) {
                var writer = JSONWriter()
                writer.value(state)
                lines.append("    state: \(String(decoding: writer.bytes, as: UTF8.self))")
            }
            if let error = record.error { lines.append("    error: \(error)") }
            for failure in record.fanOut?.failures ?? [] {
                var text = "    \(failure.reason) ×\(failure.count)"
                if !failure.devices.isEmpty { text += ": " + failure.devices.joined(separator: ", ") }
                lines.append(text)
            }
        }
        return lines
    }
}
