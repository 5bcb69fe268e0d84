import Liveline

/// A plan as a readable timeline: one row per push with its time, event, priority, size, the
/// reason it exists, and what changed on the activity since its previous push.
///
/// Rows are collected as pushes arrive and laid out by ``render()``, so columns line up.
public struct PlanTable: PushSink {
    struct Row {
        var time: Millis
        var activity: String
        var event: PushEvent
        var priority: Priority
        var bytes: Int
        var reason: String
        var changes: String
        var rejected: String?
    }

    public let scenario: Scenario
    /// The scenario's start, UNIX milliseconds.
    public let start: Millis
    private var rows: [Row] = []
    private var lastState: [Int: StateObject] = [:]
    private var lastRelevance: [Int: Double] = [:]

    public init(scenario: Scenario, start: Millis) {
        self.scenario = scenario
        self.start = start
    }

    public mutating func receive(_ push: Push, from activity: ActivityEngine) {
        rows.append(row(push, activity, rejected: nil))
    }

    public mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
        rows.append(row(push, activity, rejected: problem.description))
    }

    private mutating func row(_ push: Push, _ activity: ActivityEngine, rejected: String?) -> Row {
        var changes: [String] = []
        // Before its first push, the device shows the first state (the app started the
        // activity); a start push shows everything.
        let previous = push.event == .start ? nil : (lastState[push.activity] ?? activity.initialState())
        if push.event == .start {
            changes.append("start")
        }
        for (i, key) in activity.state.keys.enumerated() {
            let value = activity.state.values[i]
            if previous == nil || previous?.values[i] != value {
                changes.append("\(key) \(display(value))")
            }
        }
        if let relevance = activity.relevance, lastRelevance[push.activity] != relevance {
            changes.append("relevance \(relevance.templateNumber)")
            lastRelevance[push.activity] = relevance
        }
        let aps = APSPayload.aps(in: push.payload)
        if push.event == .end {
            if case .int(let dismissal)? = aps?["dismissal-date"] {
                let wait = Millis(dismissal) * 1000 - push.timestamp * 1000
                changes.append(
                    wait < 0 ? "end, dismissed at once" : "end, dismissed after \(DurationText.format(wait))")
            } else {
                changes.append("end, iOS keeps it up to 4h")
            }
        }
        if let alert = aps.flatMap(APSPayload.alertText) { changes.append("alert \"\(alert)\"") }
        lastState[push.activity] = activity.state
        return Row(
            time: push.time, activity: activity.program.spec.name, event: push.event, priority: push.priority,
            bytes: push.payload.count, reason: push.reason.description,
            changes: changes.isEmpty ? "(same state)" : changes.joined(separator: " · "), rejected: rejected
        )
    }

    private func display(_ value: StateValue) -> String {
        switch value {
        case .string(let s): return "\"\(s)\""
        case .date(let unix): return "\(DurationText.clock(unix - start)) (date)"
        case .dateRange(let a, let b):
            return "\(DurationText.clock(a - start))…\(DurationText.clock(b - start)) (dates)"
        default: return value.templateText.isEmpty ? "null" : value.templateText
        }
    }

    /// The table, with a header and a summary.
    public func render() -> String {
        let multi = scenario.activities.count > 1
        var lines: [String] = []
        let activityCount = scenario.activities.count
        lines.append("\(scenario.name) · \(scenario.file)")
        lines.append(
            "\(activityCount) \(activityCount == 1 ? "activity" : "activities") · starts \(UTCTime.format(start)) · topic \(scenario.topic)"
        )
        lines.append("")
        let header = ["TIME", multi ? "ACTIVITY" : nil, "EVENT", "PRI", "BYTES", "REASON", "CHANGES"].compactMap { $0 }
        var table: [[String]] = [header]
        for row in rows {
            var cells = [DurationText.clock(row.time - start)]
            if multi { cells.append(row.activity) }
            cells.append(row.rejected == nil ? row.event.rawValue : "REJECTED")
            cells.append(String(row.priority.apnsValue))
            cells.append(String(row.bytes))
            cells.append(row.reason)
            cells.append(row.rejected.map { "\($0)" } ?? row.changes)
            table.append(cells)
        }
        let widths = (0..<header.count).map { column in table.map { $0[column].count }.max() ?? 0 }
        let rightAligned: Set<Int> = [header.count - 3]
        for cells in table {
            var line = ""
            for (column, cell) in cells.enumerated() {
                let isLast = column == cells.count - 1
                let pad = String(repeating: " ", count: max(0, widths[column] - cell.count))
                line += rightAligned.contains(column) ? pad + cell : isLast ? cell : cell + pad
                if !isLast { line += "  " }
            }
            lines.append(line)
        }
        lines.append("")
        lines.append(summary())
        return lines.joined(separator: "\n")
    }

    private func summary() -> String {
        let sent = rows.filter { $0.rejected == nil }
        let high = sent.filter { $0.priority == .high }.count
        let heartbeats = sent.filter { $0.reason.hasPrefix("heartbeat") }.count
        let downgraded = sent.filter { $0.reason.contains("downgraded") }.count
        let deferred = sent.filter { $0.reason.contains("deferred") }.count
        let coalesced = sent.filter { $0.reason.hasPrefix("coalesced") }.count
        let rejected = rows.count - sent.count
        let largest = sent.map(\.bytes).max() ?? 0
        var parts = [
            "\(CountText.of(sent.count, "push", "pushes")): \(high) at priority 10, \(sent.count - high) at priority 5"
        ]
        parts.append("\(coalesced) coalesced")
        parts.append(CountText.of(heartbeats, "heartbeat"))
        parts.append("\(downgraded) downgraded")
        if deferred > 0 { parts.append("\(deferred) deferred") }
        if rejected > 0 { parts.append("\(rejected) REJECTED") }
        parts.append("largest payload \(largest) bytes")
        return parts.joined(separator: " · ")
    }
}

extension Double {
    /// `100` for whole numbers, `0.5` otherwise.
    var templateNumber: String { StateValue.double(self).templateText }
}
