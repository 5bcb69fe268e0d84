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

    /// Refuses a declared length over the limit (or one that is not a number); returns the
    /// declared length, if any.
    @discardableResult
    func checkDeclaredLength(_ headers: HTTPFields) throws(BridgeHTTPError) -> Int? {
        guard let declared = headers[.contentLength] else { return nil }
        guard let length = Self.decimal(declared.utf8) else {
            throw BridgeHTTPError(
                .badRequest, code: "bad-content-length", reason: "Content-Length is not a number of bytes")
        }
        if length > limit { throw .tooLarge(limit: limit) }
        return length
    }

    /// A non-negative decimal between optional spaces or tabs; nil for anything else or an
    /// overflow. On the bytes: Foundation's trimming cost more than the rest of the check.
    static func decimal(_ text: String.UTF8View) -> Int? {
        var value = 0
        var digits = 0
        var trailing = false
        for byte in text {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if digits > 0 { trailing = true }
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard !trailing else { return nil }
                let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { return nil }
                value = sum
                digits += 1
            default:
                return nil
            }
        }
        return digits > 0 ? value : nil
    }

    /// The whole body, or a 413 as soon as it passes the limit.
    func collect(_ request: Request) async throws(BridgeHTTPError) -> [UInt8] {
        let declared = try checkDeclaredLength(request.headers)
        var bytes: [UInt8] = []
        if let declared { bytes.reserveCapacity(declared) }
        do {
            for try await buffer in request.body {
                if buffer.readableBytes > limit - bytes.count { throw BridgeHTTPError.tooLarge(limit: limit) }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
        } catch let error as BridgeHTTPError {
            throw error
        } catch {
            throw BridgeHTTPError(
                .badRequest, code: "body-unreadable", reason: "the request body could not be read to its end")
        }
        return bytes
    }
}
