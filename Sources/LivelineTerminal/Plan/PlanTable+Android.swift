import Liveline

extension PlanTable {
    /// A row for one FCM message: its priority, data bytes, the Android reason, and what the Live
    /// Update shows differently.
    static func androidRow(_ message: AndroidMessage) -> Row {
        Row(
            time: message.time, activity: message.activityName, platform: .android, event: message.event,
            priority: message.priority.rawValue, bytes: message.data.byteCount, reason: message.reason.description,
            changes: androidChanges(message)
        )
    }

    /// `chip "1–0" · text "GOAL! Okafor 23'" · alert "GOAL! Northbridge FC 1–0"`
    static func androidChanges(_ message: AndroidMessage) -> String {
        let content = message.content
        var changes: [String] = []
        var visible = message.reason.visible
        if visible == ["new notification"] {
            visible = ["title", "text", "chip", "progress", "when"]
            changes.append(message.event == .start ? "start" : "posted")
        }
        for key in visible {
            switch key {
            case LiveUpdateKeys.title: changes.append("title \"\(content.title)\"")
            case LiveUpdateKeys.text: if let text = content.text { changes.append("text \"\(text)\"") }
            case LiveUpdateKeys.chip:
                if let chip = content.chip {
                    let shown = AndroidRules.chipAsShown(chip)
                    changes.append(shown == chip ? "chip \"\(chip)\"" : "chip \"\(chip)\" (shows \"\(shown)\")")
                }
            case LiveUpdateKeys.progress:
                if let progress = content.progress {
                    changes.append("progress \(progress)/\(content.progressMax ?? 100)")
                }
            case LiveUpdateKeys.when:
                if let when = content.when {
                    changes.append(
                        "when \(UTCTime.format(when))\(content.chronometer.map { " (\($0.rawValue))" } ?? "")")
                }
            default: changes.append(key)
            }
        }
        if message.event == .end, let dismissAt = message.data[LiveUpdateKeys.dismissAt].flatMap({ Millis($0) }) {
            let wait = dismissAt - message.time
            changes.append(
                wait <= 0 ? "end, removed at once" : "end, removed after \(DurationText.format(wait / 1000 * 1000))")
        }
        if let title = message.data[LiveUpdateKeys.alertTitle] ?? message.data[LiveUpdateKeys.alertTitleLocKey] {
            changes.append("alert \"\(title)\"")
        } else if message.reason.alert {
            changes.append("alert")
        }
        return changes.isEmpty ? "(nothing Android shows changed)" : changes.joined(separator: " · ")
    }

    /// `android: FCM data messages · channel match-live · 1 activity with a Live Update`
    func androidHeadline() -> String {
        let specs = scenario.activities.compactMap(\.android)
        let channels = Set(specs.map(\.channel)).sorted().joined(separator: ", ")
        return
            "android: FCM data messages · channel \(channels) · \(CountText.of(specs.count, "activity", "activities")) with a Live Update"
    }

    /// `12 FCM messages: 9 HIGH, 3 NORMAL · 2 paced · 0 not collapsible · largest data 598 bytes`
    func androidSummary(_ rows: [Row]) -> String {
        let high = rows.filter { $0.priority == FCMPriority.high.rawValue }.count
        let paced = rows.filter { $0.reason.contains("· paced ") }.count
        let notCollapsible = rows.filter { $0.reason.contains("not collapsible") }.count
        let largest = rows.map(\.bytes).max() ?? 0
        return [
            "\(CountText.of(rows.count, "FCM message", "FCM messages")): \(high) HIGH, \(rows.count - high) NORMAL",
            "\(paced) paced", "\(notCollapsible) not collapsible", "largest data \(largest) bytes",
        ].joined(separator: " · ")
    }
}
