import Foundation
import Liveline

/// The life of one stream's answer as a value: events in (the answer's head, a piece of its
/// body, its end, silence past the heartbeat timeout, an error, the connection closing), and
/// out of each what the connection's handler must do. It does no I/O, so every transition, the
/// unexpected ones too (a body before any head, an error after a refusal, a second close), is
/// tested without a socket.
///
/// ```
/// waiting ─200─▶ streaming ─end, silence, error, closed─▶ done
///    └──other status──▶ refused ─end, error, closed──────▶ done
/// ```
///
/// A refusal keeps the start of its body for the error; whatever ends the answer then, the
/// error is the refusal's status. The first end is the one that counts.
struct StreamReadStateMachine {
    enum State: Hashable {
        /// The GET went out; no final answer yet.
        case waiting
        /// The server answered 200: the body is the stream.
        case streaming
        /// Another final answer: its status and the start of its body.
        case refused(status: Int, body: [UInt8])
        /// The answer ended, one way or another. The end state.
        case done
    }

    /// How much of a refusal's body is kept for the error.
    static let refusalBodyLimit = 512

    private(set) var state = State.waiting
    let url: FeedURL
    let heartbeatTimeout: Millis

    init(url: FeedURL, heartbeatTimeout: Millis) {
        self.url = url
        self.heartbeatTimeout = heartbeatTimeout
    }

    /// What the handler does with an answer's head.
    enum HeadAction: Hashable {
        /// Tell the opener the stream is up: read its body as messages from now on.
        case streaming
        /// Nothing yet (an informational answer, a refusal whose body is still to come, or a
        /// head where none belongs).
        case ignore
    }

    mutating func receivedHead(status: Int) -> HeadAction {
        guard state == .waiting, status >= 200 else { return .ignore }
        if status == 200 {
            state = .streaming
            return .streaming
        }
        state = .refused(status: status, body: [])
        return .ignore
    }

    /// A piece of the body: true when it is the stream's, to be framed into messages; a
    /// refusal's is kept (its start) for the error.
    mutating func receivedBody(_ bytes: some Collection<UInt8>) -> Bool {
        switch state {
        case .streaming:
            return true
        case .refused(let status, var body):
            body.append(contentsOf: bytes.prefix(Self.refusalBodyLimit - body.count))
            state = .refused(status: status, body: body)
            return false
        case .waiting, .done:
            return false
        }
    }

    /// How the answer ended, for the handler to report once: fail the opener (when it still
    /// waits for the stream to come up), end the messages with `error`, close the connection.
    struct Finish: Hashable {
        var error: StreamError
        /// The opener still waits: the stream never came up.
        var failOpener: Bool
    }

    /// The answer ended. Nil for an end where none belongs (before a head) or after the first.
    mutating func receivedEnd() -> Finish? {
        switch state {
        case .streaming: finish(.ended(url: url))
        case .refused: finish(refusal())
        case .waiting, .done: nil
        }
    }

    /// Nothing arrived for the heartbeat timeout.
    mutating func heartbeatTimedOut() -> Finish? {
        finish(.heartbeatTimeout(url: url, after: heartbeatTimeout))
    }

    /// The connection failed; `tls` when TLS did, `cause` in words. After a refusal the
    /// refusal is the error.
    mutating func errorCaught(tls: Bool, cause: String) -> Finish? {
        if case .refused = state { return finish(refusal()) }
        return finish(tls ? .tlsFailed(url: url, cause: cause) : .closed(url: url, cause: cause))
    }

    /// The connection closed.
    mutating func channelClosed() -> Finish? {
        if case .refused = state { return finish(refusal()) }
        return finish(.closed(url: url, cause: nil))
    }

    private mutating func finish(_ error: StreamError) -> Finish? {
        let previous = state
        guard previous != .done else { return nil }
        state = .done
        return Finish(error: error, failOpener: previous != .streaming)
    }

    private func refusal() -> StreamError {
        guard case .refused(let status, let body) = state else { return .closed(url: url, cause: nil) }
        return .httpStatus(url: url, status: status, body: Self.summary(body))
    }

    /// The start of a refusal's body on one line, for the error message.
    static func summary(_ body: [UInt8]) -> String {
        let text = String(decoding: body, as: UTF8.self)
            .split(whereSeparator: { $0.isNewline }).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
