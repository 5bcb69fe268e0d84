import Liveline

/// The summary `liveline load` prints at the end: what ran, how fast, every push accounted
/// for, latency percentiles and thresholds.
public struct TextReport: Sendable {
    public var color: Bool

    public init(color: Bool = false) { self.color = color }

    public func render(_ result: LoadResult) -> String {
        var lines: [String] = []
        let config = result.config
        let files = config.scenarios.map {
            "\($0.file)\(config.scenarios.count > 1 ? " ×\(NumberText.grouped($0.activities))" : "")"
        }.joined(separator: ", ")
        var head =
            "liveline load · \(CountText.of(config.shardActivities, "activity", "activities", shown: NumberText.grouped(config.shardActivities)))"
        if config.shard != "1/1" { head += " (shard \(config.shard) of \(NumberText.grouped(config.activities)))" }
        if result.mergedRuns > 1 { head += " · \(result.mergedRuns) runs merged" }
        if let platforms = result.platforms {
            head +=
                " (\(NumberText.grouped(platforms.ios.activities)) iOS, \(NumberText.grouped(platforms.android.activities)) Android)"
        }
        head +=
            " · \(files) · \(config.clock == "real" ? "real clock ×\(RateText.format(config.speed))" : "virtual clock") · target \(config.target)"
        if let fcm = config.fcmTarget { head += " · FCM \(fcm)" }
        lines.append(bold(head))

        let counted = result.delivery == nil ? "pushes" : "pushes delivered"
        let count = result.delivery?.delivered ?? result.pushes.produced
        lines.append(
            "  \(NumberText.grouped(count)) \(counted) in \(NumberText.duration(millis: result.durationMillis)): \(bold(NumberText.grouped(Int(result.throughput.rounded())) + " pushes/s"))"
                + " · peak memory \(NumberText.bytes(result.resources.peakRSSBytes))"
                + (config.threads > 1 ? " · \(config.threads) engine threads" : ""))
        lines.append("")

        let p = result.pushes
        lines.append(
            row(
                result.platforms == nil ? "Pushes" : "Decisions",
                "\(NumberText.grouped(p.produced)) produced · \(NumberText.grouped(p.highPriority)) at priority 10 · \(NumberText.grouped(p.lowPriority)) at 5 · \(NumberText.bytes(p.bytes)) of payload, largest \(p.largestPayload) B"
            ))
        lines.append(
            row(
                "",
                "\(NumberText.grouped(p.coalesced)) coalesced · \(NumberText.grouped(p.heartbeats)) heartbeats · \(NumberText.grouped(p.downgraded)) downgraded · \(NumberText.grouped(p.deferred)) deferred"
                    + (p.rejectedTooLarge > 0
                        ? " · " + red("\(NumberText.grouped(p.rejectedTooLarge)) over the size limit") : "")))
        let a = result.activities
        var activityLine =
            "\(NumberText.grouped(a.played)) played · \(NumberText.grouped(a.exhaustedBudget)) ran out of budget"
        if a.stopped > 0 { activityLine += " · " + red("\(NumberText.grouped(a.stopped)) stopped by the target") }
        if a.unfinished > 0 { activityLine += " · \(NumberText.grouped(a.unfinished)) unfinished (time limit)" }
        lines.append(row(config.channels == nil ? "Activities" : "Channels", activityLine))
        if let b = result.broadcast {
            lines.append(
                row(
                    "Broadcast",
                    "\(NumberText.grouped(b.pushesSent)) broadcast pushes updated \(NumberText.grouped(b.subscribers)) subscribers \(NumberText.grouped(b.activityUpdates)) times; per-token fan-out would send \(NumberText.grouped(b.fanOutPushes)) pushes (\(b.pushesSent > 0 ? LatencyText.trimmed(Double(b.fanOutPushes) / Double(b.pushesSent), digits: 1) : "0")× as many)"
                ))
        }
        if let d = result.delivery {
            let settled = d.accounted == d.submitted
            var line =
                "\(NumberText.grouped(d.submitted)) submitted: \(NumberText.grouped(d.delivered)) delivered · \(NumberText.grouped(d.superseded)) superseded · \(NumberText.grouped(d.rejected)) rejected"
            if d.gaveUp > 0 { line += " · \(NumberText.grouped(d.gaveUp)) gave up" }
            if d.notRenewed > 0 {
                line += " · \(NumberText.grouped(d.notRenewed)) not renewed (no push-to-start token)"
            }
            if d.droppedAfterStop > 0 {
                line += " · \(NumberText.grouped(d.droppedAfterStop)) dropped (activity stopped)"
            }
            line += " · " + (d.lost == 0 ? green("0 lost") : red("\(NumberText.grouped(d.lost)) lost"))
            lines.append(row("Delivery", line + (settled ? "" : red(" (accounting does not add up)"))))
            let statuses = d.statuses.sorted { $0.key < $1.key }.map { "\($0.key) ×\(NumberText.grouped($0.value))" }
                .joined(separator: " · ")
            if !statuses.isEmpty {
                lines.append(
                    row(
                        "",
                        "statuses " + statuses + (d.retries > 0 ? " · \(NumberText.grouped(d.retries)) retries" : "")))
            }
            for (reason, n) in d.reasons.sorted(by: { $0.value > $1.value }).prefix(6) {
                lines.append(row("", red("\(reason) ×\(NumberText.grouped(n))")))
            }
            for (reason, n) in a.stopReasons.sorted(by: { $0.value > $1.value }).prefix(3) {
                lines.append(row("", red("stopped: \(reason) ×\(NumberText.grouped(n))")))
            }
            if let error = d.configurationError { lines.append(row("", red("configuration error: \(error)"))) }
        }
        if let device = result.device {
            lines.append(
                row(
                    "Device",
                    "\(NumberText.grouped(device.rendered)) rendered · "
                        + (device.wouldNotRender == 0
                            ? "0 would not render"
                            : red("\(NumberText.grouped(device.wouldNotRender)) would not render"))
                        + " · \(NumberText.grouped(device.throttled)) throttled · \(NumberText.grouped(device.droppedOld)) dropped as old (the mock's simulated devices)"
                ))
        }
        if let platforms = result.platforms {
            lines.append(contentsOf: platformRows(platforms, virtualClock: config.clock != "real"))
        }
        let l = result.latency
        if l.count > 0 {
            let from: String
            switch config.latencyFrom {
            case "release-time": from = "from release (virtual clock: from when the runner let each push go)"
            case "due-time":
                from =
                    config.target == "discard"
                    ? "engine lateness against each push's due time" : "from each push's intended send time"
            default: from = "from \(config.latencyFrom)"
            }
            lines.append(
                row(
                    "Latency",
                    "p50 \(bold(LatencyText.format(micros: l.p50Micros)))  p90 \(LatencyText.format(micros: l.p90Micros))  p99 \(bold(LatencyText.format(micros: l.p99Micros)))  p99.9 \(LatencyText.format(micros: l.p999Micros))  max \(LatencyText.format(micros: l.maxMicros))"
                ))
            lines.append(row("", "\(NumberText.grouped(l.count)) samples, \(from)"))
        } else {
            lines.append(
                row(
                    "Latency",
                    "not measured (\(config.target == "discard" ? "discard target, virtual clock: nothing is sent" : "no answers")) "
                ))
        }
        if !result.thresholds.isEmpty {
            let parts = result.thresholds.map { t in
                t.passed ? green("✓ \(t.expression)") + " (\(t.shown))" : red("✗ \(t.expression)") + " (\(t.shown))"
            }
            lines.append(row("Thresholds", parts.joined(separator: " · ")))
        }
        return lines.joined(separator: "\n")
    }

    /// A row per platform: what its rules sent, what the wire did, its latency; and what the
    /// mock's Android phones did.
    private func platformRows(_ platforms: LoadResult.PlatformResults, virtualClock: Bool) -> [String] {
        var lines: [String] = []
        for platform in Platform.allCases {
            let r = platforms[platform]
            let android = platform == .android
            var text =
                "\(NumberText.grouped(r.activities)) activities · \(NumberText.grouped(r.produced)) \(android ? "messages" : "pushes")"
                + " (\(NumberText.grouped(r.highPriority)) \(android ? "HIGH" : "at priority 10"))"
            if android {
                if r.paced > 0 { text += " · \(NumberText.grouped(r.paced)) paced" }
                if r.withoutCollapseKey > 0 {
                    text += " · \(NumberText.grouped(r.withoutCollapseKey)) without collapse key"
                }
            } else if r.downgraded + r.deferred > 0 {
                text += " · \(NumberText.grouped(r.downgraded)) downgraded · \(NumberText.grouped(r.deferred)) deferred"
            }
            let d = r.delivery
            text += " · \(NumberText.grouped(d.delivered)) delivered"
            text += " · " + (d.errors == 0 ? "0 errors" : red("\(NumberText.grouped(d.errors)) errors"))
            if r.latency.count > 0 {
                text +=
                    " · p50 \(LatencyText.format(micros: r.latency.p50Micros)) p99 \(bold(LatencyText.format(micros: r.latency.p99Micros))) max \(LatencyText.format(micros: r.latency.maxMicros))"
            }
            lines.append(row(android ? "Android" : "iOS", text))
            if let error = d.configurationError { lines.append(row("", red("configuration error: \(error)"))) }
        }
        if let phones = platforms.android.phones {
            let shown = (phones["posted"] ?? 0) + (phones["updated"] ?? 0)
            let wouldNot = phones["wouldNotRender"] ?? 0
            var text =
                "\(NumberText.grouped(shown)) posted or updated · "
                + (wouldNot == 0 ? "0 would not render" : red("\(NumberText.grouped(wouldNot)) would not render"))
                + " · \(NumberText.grouped(phones["droppedByRate"] ?? 0)) dropped by the update rate"
                + " · \(NumberText.grouped(phones["stale"] ?? 0)) stale"
            text += " (the mock's phones)"
            lines.append(row("Phones", text))
            if virtualClock, phones["droppedByRate"] ?? 0 > 0 {
                lines.append(
                    row(
                        "",
                        "the virtual clock brings a story faster than real time, so the phones' update rate sheds more than it would: --clock real shows what the app would show"
                    ))
            }
        }
        return lines
    }

    private func row(_ label: String, _ text: String) -> String {
        let padded = label.padding(toLength: 11, withPad: " ", startingAt: 0)
        return "  " + (label.isEmpty ? padded : dim(padded)) + text
    }

    private func bold(_ s: String) -> String { color ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
    private func dim(_ s: String) -> String { color ? "\u{1B}[2m\(s)\u{1B}[0m" : s }
    private func red(_ s: String) -> String { color ? "\u{1B}[31m\(s)\u{1B}[0m" : s }
    private func green(_ s: String) -> String { color ? "\u{1B}[32m\(s)\u{1B}[0m" : s }
}

/// The live progress line drawn on a terminal: rate, in flight, errors, elapsed and ETA.
public struct ProgressLine: Sendable {
    private var lastProduced = 0
    private var lastCompleted = 0
    private var lastMillis: Int64 = 0
    private var rate: Double = 0

    public init() {}

    /// The line for `progress`, with the rate over the time since the previous call.
    public mutating func render(_ progress: LoadProgress, width: Int = 100) -> String {
        let count = progress.networked ? progress.completed : progress.produced
        let previous = progress.networked ? lastCompleted : lastProduced
        let span = progress.elapsedMillis - lastMillis
        if span >= 200 {
            let instant = Double(count - previous) * 1000 / Double(span)
            rate = rate == 0 ? instant : rate * 0.5 + instant * 0.5
            lastProduced = progress.produced
            lastCompleted = progress.completed
            lastMillis = progress.elapsedMillis
        }
        var parts: [String] = []
        if let fraction = progress.fraction { parts.append(String(Int(fraction * 100)) + "%") }
        parts.append("\(NumberText.short(Double(progress.networked ? progress.completed : progress.produced))) pushes")
        parts.append("\(NumberText.short(rate))/s")
        if progress.networked {
            parts.append("\(NumberText.grouped(progress.inFlight)) in flight")
            parts.append("\(NumberText.grouped(progress.errors)) errors")
            for platform in progress.platforms {
                parts.append(
                    "\(platform.platform == .android ? "Android" : "iOS") \(NumberText.short(Double(platform.completed)))"
                        + (platform.errors > 0 ? " (\(NumberText.grouped(platform.errors)) errors)" : ""))
            }
        }
        var time = NumberText.duration(millis: progress.elapsedMillis)
        if let eta = progress.etaMillis { time += " · ETA \(NumberText.duration(millis: eta))" }
        parts.append(time)
        let line = parts.joined(separator: " · ")
        return String(line.prefix(max(20, width - 1)))
    }
}
