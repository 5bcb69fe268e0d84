import Liveline

/// Reads a device push's body in one pass into what the device looks at (``LiveActivityPayload``).
///
/// **Why.** Parsing the whole body into a ``JSONValue`` and then looking `aps` up in it built
/// two objects (and a `String` per key) that were thrown away at once; with the tree torn down
/// again, that was a third of what a push cost the mock. Here the root and `aps` objects are
/// walked in place and their keys compared as bytes; only the values of `aps`'s members become
/// ``JSONValue``s (a content-state is kept and checked), and the root's other members are parsed
/// and dropped.
///
/// It accepts and refuses exactly what ``JSONValue/init(parsing:)`` does (the same reader
/// underneath: grammar, depth limit, lone surrogates), and the payload equals
/// `LiveActivityPayload(body:loneSurrogate:)` of the parsed body; the `json` fuzz target and
/// `PushBodyReaderTests` compare the two.
package enum PushBodyReader {
    /// The payload of `bytes`, or nil when the body is JSON but not an object. Short strings
    /// come from `strings` when given (the connection's).
    static func read(
        _ bytes: UnsafeRawBufferPointer, strings: UnsafeMutablePointer<JSONStringCache>? = nil
    ) throws(JSONSyntaxError) -> LiveActivityPayload? {
        var reader = JSONValueReader(bytes, strings: strings)
        reader.skipWhitespace()
        guard reader.current == UInt8(ascii: "{") else {
            _ = try reader.parseValue()
            reader.skipWhitespace()
            guard reader.index == bytes.count else { throw reader.error("unexpected text after the value") }
            return nil
        }
        var payload = LiveActivityPayload()
        var apsSeen = false
        var apsIsObject = false
        try reader.members { (reader: inout JSONValueReader, key) throws(JSONSyntaxError) in
            // A lookup in the parsed object finds a repeated key's first value: so does this.
            guard !apsSeen, Self.withBytes(of: key, reader, { LiveActivityPayload.equal($0, "aps") }) else {
                _ = try reader.parseValue()
                return
            }
            apsSeen = true
            guard reader.current == UInt8(ascii: "{") else {
                _ = try reader.parseValue()
                return
            }
            apsIsObject = true
            try reader.members { (reader: inout JSONValueReader, key) throws(JSONSyntaxError) in
                let value = try reader.parseValue()
                Self.withBytes(of: key, reader) { payload.take(member: $0, value) }
            }
        }
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the value") }
        payload.finish(apsIsObject: apsIsObject, loneSurrogate: reader.loneSurrogate)
        return payload
    }

    /// How this reader and the tree parser with `LiveActivityPayload(body:loneSurrogate:)` differ
    /// on `bytes`, in words; nil when they agree (for the fuzz target).
    package static func disagreement(on bytes: UnsafeRawBufferPointer) -> String? {
        var treeError: JSONSyntaxError?
        var tree: (value: JSONValue, loneSurrogate: Int?)?
        do throws(JSONSyntaxError) { tree = try JSONValueReader.parseNotingSurrogates(bytes) } catch {
            treeError = error
        }
        var readerError: JSONSyntaxError?
        var payload: LiveActivityPayload?
        do throws(JSONSyntaxError) { payload = try read(bytes) } catch { readerError = error }
        switch (tree, payload) {
        case (nil, _):
            return readerError == nil
                ? "the tree parser refuses the body (\(treeError.map(String.init(describing:)) ?? "")), the push reader does not"
                : nil
        case (let tree?, nil):
            if let readerError { return "the push reader refuses the body (\(readerError)), the tree parser does not" }
            guard case .object = tree.value else { return nil }
            return "the push reader finds no object where the tree parser does"
        case (let tree?, let payload?):
            guard case .object = tree.value else {
                return "the push reader reads an object where the tree parser finds none"
            }
            let expected = LiveActivityPayload(body: tree.value, loneSurrogate: tree.loneSurrogate)
            guard payload == expected else { return "the payloads differ: \(payload) against \(expected)" }
            // Read twice more through one string cache, as a connection reads: the second
            // time its strings come from the cache.
            var strings = JSONStringCache()
            for _ in 0..<2 {
                let cached = withUnsafeMutablePointer(to: &strings) { strings in try? read(bytes, strings: strings) }
                guard cached == expected else {
                    return "the payloads differ with a string cache: \(String(describing: cached)) against \(expected)"
                }
            }
            return nil
        }
    }

    /// The key's UTF-8 bytes: in the input, or of its decoded text when it had escapes.
    private static func withBytes<Result>(
        of key: JSONValueReader.StringToken, _ reader: JSONValueReader, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        switch key {
        case .raw(let range):
            return body(UnsafeRawBufferPointer(rebasing: reader.bytes[range]))
        case .decoded(var text):
            return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }
}
