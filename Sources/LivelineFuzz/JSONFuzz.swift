import Liveline
import LivelineMockAPNs

extension FuzzTarget {
    /// Both JSON readers: Liveline's (into `StateValue`, for webhook bodies and payloads) and
    /// the mock's (zero-copy, for pushes). They must agree on what is JSON, except where they
    /// differ on purpose: the mock reads a lone surrogate escape as U+FFFD (and its device
    /// drops the push), it refuses nesting deeper than ``JSONValue/maxParsingDepth``, and it
    /// reads invalid UTF-8 as U+FFFD where Liveline's refuses it (RFC 8259, webhook bodies). The
    /// mock's reader of device push bodies must read what its parser does (``PushBodyReader``).
    static let json = FuzzTarget(name: "json", summary: "both JSON parsers, which must agree on what is valid") {
        bytes in
        var livelineError: JSONSyntaxError?
        do throws(JSONSyntaxError) { _ = try JSONParser.parse(Array(bytes)) } catch { livelineError = error }
        var mockError: JSONSyntaxError?
        var loneSurrogate: Int?
        do throws(JSONSyntaxError) { loneSurrogate = try JSONValue.parsingNotingSurrogates(bytes).loneSurrogate } catch
        { mockError = error }
        switch (livelineError, mockError) {
        case (nil, nil), (.some, .some): break
        case (.some, nil) where loneSurrogate != nil: break
        case (.some(let error), nil) where error.kind == .invalidUTF8: break
        case (nil, .some(let error)) where error.message.hasPrefix("nesting deeper than"): break
        case (.some(let error), nil):
            preconditionFailure(
                "Liveline's JSON parser refuses \(bytes.count) bytes (\(error)) that the mock's accepts")
        case (nil, .some(let error)):
            preconditionFailure(
                "the mock's JSON parser refuses \(bytes.count) bytes (\(error)) that Liveline's accepts")
        }
        if let disagreement = PushBodyReader.disagreement(on: bytes) {
            preconditionFailure(
                "the mock's push body reader and its JSON parser disagree on \(bytes.count) bytes: \(disagreement)")
        }
        return livelineError == nil
    }
}
