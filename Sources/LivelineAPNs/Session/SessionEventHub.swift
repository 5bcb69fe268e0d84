import LivelineCore
import NIOConcurrencyHelpers

/// Hands a session's events to whoever listens, and counts them into its report.
///
/// Events come from the session's actor and from NIO event loops (delivery answers); listeners
/// are an optional synchronous observer (for views that must not lag) and any number of async
/// streams. Nothing is buffered for nobody: a stream exists only once someone asks for it.
///
/// **Concurrency.** One lock guards the listeners and the tally; it is never held while a
/// listener runs.
final class SessionEventHub: Sendable {
    private struct State {
        var streams: [Int: AsyncStream<SessionEvent>.Continuation] = [:]
        var nextStream = 0
        var report = SessionReport()
        var names: [String] = []
        var finished = false
    }

    private let state = NIOLockedValueBox(State())
    private let observer: (@Sendable (SessionEvent) -> Void)?

    init(names: [String], observer: (@Sendable (SessionEvent) -> Void)?) {
        self.observer = observer
        state.withLockedValue { $0.names = names }
    }

    /// A new stream of every event from now on; it finishes after ``SessionEvent/finished(_:)``.
    func stream(bufferingPolicy: AsyncStream<SessionEvent>.Continuation.BufferingPolicy) -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionEvent.self, bufferingPolicy: bufferingPolicy)
        let finished = state.withLockedValue { state -> Bool in
            guard !state.finished else { return true }
            let id = state.nextStream
            state.nextStream += 1
            state.streams[id] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.state.withLockedValue { _ = $0.streams.removeValue(forKey: id) }
            }
            return false
        }
        if finished { continuation.finish() }
        return stream
    }

    func addName(_ name: String) {
        state.withLockedValue { $0.names.append(name) }
    }

    /// The report so far.
    var report: SessionReport { state.withLockedValue { $0.report } }

    func setStopReason(_ reason: StopReason) {
        state.withLockedValue { state in
            if state.report.stopReason == nil { state.report.stopReason = reason }
        }
    }

    func emit(_ event: SessionEvent) {
        let streams = state.withLockedValue { state -> [AsyncStream<SessionEvent>.Continuation] in
            Self.count(event, into: &state)
            return state.streams.isEmpty ? [] : Array(state.streams.values)
        }
        observer?(event)
        for stream in streams { stream.yield(event) }
    }

    /// Sends the final report and closes every stream.
    func finish() -> SessionReport {
        let (report, streams) = state.withLockedValue {
            state -> (SessionReport, [AsyncStream<SessionEvent>.Continuation]) in
            state.finished = true
            let streams = Array(state.streams.values)
            state.streams = [:]
            return (state.report, streams)
        }
        let event = SessionEvent.finished(report)
        observer?(event)
        for stream in streams {
            stream.yield(event)
            stream.finish()
        }
        return report
    }

    private static func count(_ event: SessionEvent, into state: inout State) {
        switch event {
        case .decided: state.report.decided += 1
        case .refused: state.report.refused += 1
        case .delivery(let delivery):
            switch delivery {
            case .delivered: state.report.delivered += 1
            case .retrying: state.report.retries += 1
            case .superseded: state.report.superseded += 1
            case .rejected: state.report.rejected += 1
            case .gaveUp: state.report.gaveUp += 1
            case .abandoned(_, let push, _): state.report.abandoned.append(push)
            case .notRenewed: state.report.notRenewed += 1
            case .stopped(let activity, let reason):
                let name = state.names.indices.contains(activity) ? state.names[activity] : "activity \(activity)"
                state.report.stoppedActivities.append(.init(activity: activity, name: name, reason: reason))
            case .configurationError(let advice):
                if state.report.configurationError == nil { state.report.configurationError = advice }
            case .sent: break
            }
        case .triggered, .changed, .targetSet, .woke, .stopping, .finished: break
        }
    }
}
