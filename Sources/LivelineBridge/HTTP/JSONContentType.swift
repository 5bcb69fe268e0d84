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
        let mediaType = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let type = mediaType.trimmingCharacters(in: .whitespaces).lowercased()
        if type.isEmpty { return true }
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
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
