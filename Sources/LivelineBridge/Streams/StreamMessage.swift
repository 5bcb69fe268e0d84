import Liveline

/// One thing read from a stream's body, framed by its format.
package enum StreamMessage: Sendable, Hashable {
    /// An event: its JSON bytes, and the fields the framing carried (`sse-id`, `sse-event`),
    /// which the source's rules read as headers.
    case event(body: [UInt8], fields: [String: String])
    /// A keep-alive the framing itself marks: an empty NDJSON line, an SSE comment.
    case keepAlive
    /// The server asks for this reconnection delay (SSE `retry:`).
    case retry(Millis)
    /// A message larger than the limit, skipped whole.
    case tooLarge(bytes: Int)
}

/// Frames a stream's bytes into messages as they arrive, whatever the chunk boundaries.
package protocol StreamFraming {
    /// The messages completed by `bytes`, in order.
    mutating func feed(_ bytes: some Collection<UInt8>) -> [StreamMessage]
}
