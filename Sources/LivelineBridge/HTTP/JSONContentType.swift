import Foundation
import HTTPTypes

/// Which request `Content-Type`s the bridge takes as JSON.
///
/// `application/json` and any `application/…+json` (with parameters such as `charset`) are
/// JSON. A request without a `Content-Type` is accepted too: some senders leave it out, and the
/// mapper still refuses a body that does not parse (400). Anything else that is declared
/// (`text/plain`, a form) is refused with 415, so a sender pointed at the wrong URL, or sending
/// the wrong format, learns it at once.
enum JSONContentType {
    /// Whether a request with these headers may carry JSON.
    static func isAcceptable(_ headers: HTTPFields) -> Bool {
        guard let value = headers[.contentType] else { return true }
        // On every webhook: bytes, not Foundation's locale-aware string functions.
        var type = value.utf8.prefix { $0 != UInt8(ascii: ";") }[...]
        while let first = type.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            type = type.dropFirst()
        }
        while let last = type.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { type = type.dropLast() }
        if type.isEmpty { return true }
        let lower = type.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
        if lower.elementsEqual("application/json".utf8) { return true }
        return lower.starts(with: "application/".utf8) && lower.reversed().starts(with: "nosj+".utf8)
    }

    /// Refuses a declared type that is not JSON with 415.
    static func check(_ headers: HTTPFields) throws(BridgeHTTPError) {
        guard !isAcceptable(headers) else { return }
        let declared = String((headers[.contentType] ?? "").prefix(100))
        throw BridgeHTTPError(
            .unsupportedMediaType, code: "unsupported-media-type",
            reason: "Content-Type is \(declared); send the body as application/json")
    }
}
