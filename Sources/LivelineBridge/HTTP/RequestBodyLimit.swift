import Foundation
import Hummingbird
import HTTPTypes

/// Reads a request body up to a limit, refusing a larger one with 413 as early as it can.
///
/// A declared `Content-Length` over the limit is refused before any byte of the body is read;
/// a body without one (chunked) is refused as soon as what arrived passes the limit, so no more
/// than `limit` bytes (plus one network read) are ever held. Hummingbird then reads and drops
/// the rest of the body to keep the connection usable.
struct RequestBodyLimit: Sendable {
    /// The largest body accepted, in bytes.
    var limit: Int

    /// Refuses a declared length over the limit (or one that is not a number).
    func checkDeclaredLength(_ headers: HTTPFields) throws(BridgeHTTPError) {
        guard let declared = headers[.contentLength] else { return }
        guard let length = Int(declared.trimmingCharacters(in: .whitespaces)), length >= 0 else {
            throw BridgeHTTPError(.badRequest, code: "bad-content-length", reason: "Content-Length is not a number of bytes")
        }
        if length > limit { throw .tooLarge(limit: limit) }
    }

    /// The whole body, or a 413 as soon as it passes the limit.
    func collect(_ request: Request) async throws(BridgeHTTPError) -> [UInt8] {
        try checkDeclaredLength(request.headers)
        var bytes: [UInt8] = []
        do {
            for try await buffer in request.body {
                if buffer.readableBytes > limit - bytes.count { throw BridgeHTTPError.tooLarge(limit: limit) }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
        } catch let error as BridgeHTTPError {
            throw error
        } catch {
            throw BridgeHTTPError(.badRequest, code: "body-unreadable", reason: "the request body could not be read to its end")
        }
        return bytes
    }
}
