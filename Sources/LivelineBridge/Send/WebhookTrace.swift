import Foundation
import Liveline

/// What one webhook did in the bridge, as `GET /v1/events/{source}/{event}` told it: stored,
/// applied or superseded, mapped to which activity, the push the step decided (priority, the
/// engine's reason, the payload), APNs' answer and what the device shows. ``lines`` draws it
/// for `liveline bridge send --follow`.
public struct WebhookTrace: Sendable, Hashable {
    /// How the following ended.
    public enum Conclusion: Sendable, Hashable {
        /// The push the event caused was answered by APNs (or the mock).
        case answered
        /// Applied, and no push is due for it within the wait: the engine holds the change (or
        /// it changed nothing a device shows) until `until`, if known.
        case held(until: Millis?)
        /// Recorded only: no rule names its type.
        case ignored
        /// Kept, never applied, with why.
        case superseded(String)
        /// No activity is registered under its key: the event waits in the inbox.
        case notRegistered
        /// Still not done after the wait; says what was still awaited.
        case timedOut(String)
    }

    /// The answer the bridge gave last, as parsed JSON.
    public var answer: StateObject
    /// How the following ended.
    public var conclusion: Conclusion
    /// What the webhook's own answer said: `stored`, or `duplicate` for an event the bridge
    /// already held (its story is that of the first).
    public var received: String

    /// A trace of `answer`, concluded as `conclusion`.
    public init(answer: StateObject, conclusion: Conclusion, received: String = "stored") {
        self.answer = answer
        self.conclusion = conclusion
        self.received = received
    }

    /// The activity the event maps to; empty when the answer names none.
    public var activityKey: String { Self.activityKey(in: answer) ?? "" }
    /// The status APNs answered the activity's last push with, when one was answered.
    public var apnsStatus: Int? { Self.int(lastPush?["status"]) }
    /// The event's state in the bridge: `pending`, `applied` or `superseded`.
    public var state: String { Self.text(answer["state"]) ?? "" }
    var step: StateObject? { Self.object(answer["step"]) }
    var activityStatus: StateObject? { Self.object(answer["activity-status"]) }
    var lastPush: StateObject? { activityStatus.flatMap { Self.object($0["last-push"]) } }

    /// The activity key an answer names: `activity-key`, or `activity` from a bridge older than it.
    static func activityKey(in answer: StateObject) -> String? {
        text(answer["activity-key"]) ?? text(answer["activity"])
    }

    /// The pushes the event's step decided, and any later one that carried a held change.
    var pushes: [StateObject] {
        let own = step.flatMap { Self.array($0["pushes"]) } ?? []
        let later = Self.object(answer["later-push"]).flatMap { Self.array($0["pushes"]) } ?? []
        return (own + later).compactMap { Self.object($0) }
    }

    /// The trace as a few aligned lines, for a terminal.
    public var lines: [String] {
        var lines: [String] = []
        let type = Self.text(answer["type"]).map { " (\($0))" } ?? ""
        let first = received == "duplicate" ? "duplicate" : "stored"
        let earlier = received == "duplicate" ? " (already held: what follows is the first one's story)" : ""
        lines.append(
            row(
                first,
                "event \(Self.text(answer["event"]) ?? "?")\(type) of \(Self.text(answer["source"]) ?? "?") → activity \(activityKey)\(earlier)"
            ))
        switch conclusion {
        case .notRegistered:
            lines.append(
                row(
                    "waiting",
                    "no activity '\(activityKey)' is registered, so the event waits in the inbox; "
                        + "it applies once the app registers one (PUT /v1/activities/\(activityKey) with an update-token or push-to-start-token)"
                ))
            return lines
        case .superseded(let reason):
            lines.append(row("superseded", "kept, not applied: \(reason)"))
            appendDevice(to: &lines)
            return lines
        case .ignored:
            lines.append(row("ignored", "no rule of the source names this type; recorded only, nothing pushed"))
            return lines
        default:
            break
        }
        if state == "pending" {
            lines.append(
                row(
                    "pending",
                    "not applied yet (pending events of the activity: \(activityStatus.flatMap { Self.int($0["pending-events"]) } ?? 0))"
                ))
        } else if let at = Self.text(answer["applied-at"]) {
            lines.append(row("applied", "at \(at)"))
        }
        if step == nil, state != "pending" {
            lines.append(
                row("push", "decided by another bridge instance (or before a restart): its reason is not known here"))
        }
        for push in pushes { lines.append(row("push", Self.describe(push))) }
        if let step, pushes.isEmpty {
            let deadline = Self.text(step["next-deadline"]).map { "; the engine runs again at \($0)" } ?? ""
            lines.append(
                row(
                    "push",
                    "none yet: the change is held (min-interval, one push a second, or the budget) or changed nothing a device shows\(deadline)"
                ))
        }
        if let last = lastPush, case .answered = conclusion {
            // An Android key's push was answered by FCM, whose id is the message's name.
            let android = activityStatus.flatMap { Self.text($0["platform"]) } == "android"
            let reason = Self.text(last["reason"]).map { " \($0)" } ?? ""
            let id = Self.text(last["apns-id"]).map { android ? " · message \($0)" : " · apns-id \($0)" } ?? ""
            lines.append(
                row(
                    android ? "FCM" : "APNs",
                    "\(Self.int(last["status"]).map(String.init) ?? "?")\(reason) at \(Self.text(last["at"]) ?? "?")\(id)"
                ))
        }
        if let error = activityStatus.flatMap({ Self.text($0["last-error"]) }) { lines.append(row("error", error)) }
        appendDevice(to: &lines)
        if case .timedOut(let what) = conclusion { lines.append(row("timeout", what)) }
        return lines
    }

    private func appendDevice(to lines: inout [String]) {
        guard let activity = activityStatus else { return }
        if let device = Self.object(activity["device"]) {
            var parts: [String] = []
            if let outcome = Self.text(device["outcome"]) { parts.append(outcome) }
            if let lifecycle = Self.text(device["lifecycle"]) { parts.append(lifecycle) }
            if let state = device["content-state"], state != .null { parts.append(Self.compact(state, limit: 160)) }
            lines.append(row("device", parts.joined(separator: " · ")))
        } else if let state = activity["content-state"], state != .null {
            lines.append(
                row(
                    "shows",
                    "\(Self.text(activity["lifecycle"]) ?? "") · \(Self.compact(state, limit: 160)) (the bridge's state of the story)"
                ))
        }
    }

    private func row(_ label: String, _ text: String) -> String {
        label.padding(toLength: 11, withPad: " ", startingAt: 0) + text
    }

    /// `update p5 · beat preparing · 236 bytes · content-state {…} · alert "…"`.
    static func describe(_ push: StateObject) -> String {
        var parts = ["\(text(push["event"]) ?? "push") p\(int(push["priority"]).map(String.init) ?? "?")"]
        if let reason = text(push["reason"]), !reason.isEmpty { parts.append(reason) }
        if let bytes = int(push["bytes"]) { parts.append("\(bytes) bytes") }
        if let aps = object(push["aps"]) {
            if let state = aps["content-state"] { parts.append("content-state \(compact(state, limit: 120))") }
            if let alert = object(aps["alert"]), let title = text(alert["title"]) { parts.append("alert \"\(title)\"") }
            if let score = aps["relevance-score"], score != .null {
                parts.append("relevance \(compact(score, limit: 12))")
            }
        }
        return parts.joined(separator: " · ")
    }

    static func compact(_ value: StateValue, limit: Int) -> String {
        var writer = JSONWriter()
        writer.value(value)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        return text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }

    static func text(_ value: StateValue?) -> String? {
        if case .string(let text)? = value { text } else { nil }
    }

    static func int(_ value: StateValue?) -> Int? {
        switch value {
        case .int(let number)?: number
        case .double(let number)?: Int(exactly: number)
        default: nil
        }
    }

    static func object(_ value: StateValue?) -> StateObject? {
        if case .object(let object)? = value { object } else { nil }
    }

    static func array(_ value: StateValue?) -> [StateValue]? {
        if case .array(let array)? = value { array } else { nil }
    }
}
