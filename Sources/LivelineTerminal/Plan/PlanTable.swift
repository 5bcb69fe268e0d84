import Liveline

/// A plan as a readable timeline: one row per push with its time, event, priority, size, the
/// reason it exists, and what changed on the activity since its previous push.
///
/// With Android among its platforms, each decision also gets the FCM message the Android
/// platform makes of it (``AndroidPlatform``), in a row of its own at the time it is sent, so
/// both platforms' messages read side by side with their reasons.
///
/// Rows are collected as pushes arrive and laid out by ``render()``, so columns line up.
public struct PlanTable: PushSink {
    struct Row {
        var time: Millis
        var activity: String
        var platform: Platform = .ios
        var event: PushEvent
        /// `10` or `5` for APNs, `HIGH` or `NORMAL` for FCM.
        var priority: String
        var bytes: Int
        var reason: String
        var changes: String
        var rejected: String?
    }

    public let scenario: Scenario
    /// The scenario's start, UNIX milliseconds.
    public let start: Millis
    /// The platforms whose messages it shows.
    public let platforms: Set<Platform>
    private var rows: [Row] = []
    private var lastState: [Int: StateObject] = [:]
    private var lastRelevance: [Int: Double] = [:]
    private var android = AndroidPlatform()

    public init(scenario: Scenario, start: Millis, platforms: Set<Platform> = [.ios]) {
        self.scenario = scenario
        self.start = start
        self.platforms = platforms
    }

    public mutating func receive(_ push: Push, from activity: ActivityEngine) {
        if platforms.contains(.ios) { rows.append(row(push, activity, rejected: nil)) }
        if platforms.contains(.android) {
            rows.append(contentsOf: android.receive(push, from: activity).map(Self.androidRow))
        }
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
            time: push.time, activity: activity.program.spec.name, event: push.event,
            priority: String(push.priority.apnsValue), bytes: push.payload.count, reason: push.reason.description,
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

    /// The table, with a header and a summary. Android messages still waiting for their slot
    /// (the app's update rate) are laid out at the time they go.
    public func render() -> String {
        var pending = android
        let rows = (self.rows + pending.finish().map(Self.androidRow)).enumerated()
            .sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        let multi = scenario.activities.count > 1
        let both = platforms.count > 1
        var lines: [String] = []
        let activityCount = scenario.activities.count
        lines.append("\(scenario.name) · \(scenario.file)")
        lines.append(
            "\(activityCount) \(activityCount == 1 ? "activity" : "activities") · starts \(UTCTime.format(start)) · topic \(scenario.topic)"
        )
        if platforms.contains(.android) { lines.append(androidHeadline()) }
        lines.append("")
        let header = [
            "TIME", multi ? "ACTIVITY" : nil, both ? "PLATFORM" : nil, "EVENT", "PRI", "BYTES", "REASON", "CHANGES",
        ]
        .compactMap { $0 }
        var table: [[String]] = [header]
        for row in rows {
            var cells = [Self.clock(row.time - start)]
            if multi { cells.append(row.activity) }
            if both { cells.append(row.platform.rawValue) }
            cells.append(row.rejected == nil ? row.event.rawValue : "REJECTED")
            cells.append(row.priority)
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
        if platforms.contains(.ios) { lines.append(summary(rows.filter { $0.platform == .ios })) }
        if platforms.contains(.android) { lines.append(androidSummary(rows.filter { $0.platform == .android })) }
        return lines.joined(separator: "\n")
    }

    /// `+33:37`, and tenths of a second when there are any (a paced Android message).
    static func clock(_ offset: Millis) -> String {
        let tenths = (abs(offset) % 1000) / 100
        return DurationText.clock(offset) + (tenths > 0 ? ".\(tenths)" : "")
    }

    private func summary(_ rows: [Row]) -> String {
        let sent = rows.filter { $0.rejected == nil }
        let high = sent.filter { $0.priority == "10" }.count
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
        let renewals = sent.filter { $0.event == .start && $0.reason.hasPrefix("renewal #") }.count
        if renewals > 0 { parts.append(CountText.of(renewals, "renewal")) }
        if rejected > 0 { parts.append("\(rejected) REJECTED") }
        parts.append("largest payload \(largest) bytes")
        return parts.joined(separator: " · ")
    }
}

extension Double {
    /// `100` for whole numbers, `0.5` otherwise.
    var templateNumber: String { StateValue.double(self).templateText }
}
