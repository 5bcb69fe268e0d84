import LivelineCore

/// A successful `messages:send` answer, `{"name": "projects/{project}/messages/{id}"}`.
public enum FCMSendAnswer {
    /// The message's name in a success body, if the body has one.
    public static func messageName(in body: [UInt8]) -> String? {
        // FCM's answer is `{"name":"…"}`: an ASCII name without escapes, the body no more than
        // that (and white space around it), is read straight from the bytes; anything else by
        // the JSON parser.
        if let name = plainName(in: body) { return name }
        guard case .object(let root)? = try? JSONParser.parse(body), case .string(let name)? = root["name"] else {
            return nil
        }
        return name
    }

    private static let namePrefix: [UInt8] = Array(#"{"name":""#.utf8)

    /// The name of `{"name":"…"}` when the body is that and nothing else, the name printable
    /// ASCII without a quote or backslash; nil otherwise.
    static func plainName(in body: [UInt8]) -> String? {
        let prefix = namePrefix
        var start = 0
        var end = body.count
        while start < end, isSpace(body[start]) { start += 1 }
        while end > start, isSpace(body[end - 1]) { end -= 1 }
        guard end - start >= prefix.count + 2, body[start..<(start + prefix.count)].elementsEqual(prefix),
            body[end - 1] == UInt8(ascii: "}"), body[end - 2] == UInt8(ascii: "\"")
        else { return nil }
        let name = body[(start + prefix.count)..<(end - 2)]
        guard name.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    /// JSON's white space: space, tab, line feed, carriage return.
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
