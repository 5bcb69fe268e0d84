/// A JSON value kept as its compact text, for values that are stored long and read rarely.
///
/// Every simulated activity keeps its current content-state and last alert, but only the
/// inspection API and the dashboard read them. As a parsed ``JSONValue`` a football score is a
/// tree of arrays and strings of about 400 bytes; as text it is one exact-size buffer of about
/// 190. Writing the text costs one pass per rendered push; reading parses it back, exactly
/// (``JSONValue/write(into:)`` and the parser agree on every value the parser produces).
struct CompactJSON: Sendable {
    private let bytes: [UInt8]

    init(_ value: JSONValue) {
        var text: [UInt8] = []
        text.reserveCapacity(256)
        value.write(into: &text)
        // An exact-size copy: the growth slack of `text` would be kept for the value's lifetime.
        bytes = [UInt8](unsafeUninitializedCapacity: text.count) { buffer, count in
            _ = buffer.initialize(from: text)
            count = text.count
        }
    }

    /// The value again. Text written from a parsed value always parses; `null` stands in should
    /// it ever not, rather than stopping the mock.
    var value: JSONValue {
        (try? JSONValue(parsing: bytes)) ?? .null
    }
}
