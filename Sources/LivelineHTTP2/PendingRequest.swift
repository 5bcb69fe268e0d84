import NIOCore

/// A request a server is receiving on one stream: what it read of the HEADERS (`Head`, its own
/// shape) and the body, kept only while within `limit` bytes, so an oversized request is
/// answered without holding it all.
package struct PendingRequest<Head> {
    /// What the server read of the request's header block.
    package var head: Head
    /// The body so far; nil when there is none or once it went over the limit.
    package var body: ByteBuffer?
    /// Bytes of body received, kept or not.
    package var size = 0
    /// The most body bytes kept.
    package let limit: Int

    /// A request with `head` and no body yet.
    @inlinable
    package init(head: Head, limit: Int) {
        self.head = head
        self.limit = limit
    }

    /// Whether the body went over ``limit``.
    @inlinable
    package var isOverLimit: Bool { size > limit }

    /// Adds a DATA frame's bytes; keeps them only while within the limit.
    @inlinable
    package mutating func append(_ buffer: ByteBuffer) {
        size += buffer.readableBytes
        if size > limit {
            body = nil
        } else if body == nil {
            body = buffer
        } else {
            var copy = buffer
            body?.writeBuffer(&copy)
        }
    }
}
