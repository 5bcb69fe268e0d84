import LivelineHTTP2

/// The request headers the mock looks at, pulled out of the HPACK block in one pass.
///
/// A header that appears twice sets ``duplicateHeader``: APNs answers DuplicateHeaders.
struct RequestHead {
    var method: String?
    var path: String?
    var authorization: String?
    var pushType: String?
    var topic: String?
    var priority: String?
    var expiration: String?
    var apnsID: String?
    var collapseID: String?
    var channelID: String?
    var requestID: String?
    var duplicateHeader: String?

    init() {}

    init(_ headers: HeaderFields) {
        for index in headers.indices {
            let (name, value) = headers[index]
            var bytes = name
            bytes.withUTF8 { name in
                // Every header of interest starts with ':' or 'a'; skip the rest without comparing.
                guard let first = name.first, first == UInt8(ascii: ":") || first == UInt8(ascii: "a") else { return }
                // Dispatch on the length first, then compare bytes: most names need one
                // comparison at most, and none goes through String's Unicode-aware equality.
                switch name.count {
                case 5: if Self.equal(name, ":path") { Self.set(&path, value, ":path", &duplicateHeader) }
                case 7:
                    if Self.equal(name, ":method") {
                        Self.set(&method, value, ":method", &duplicateHeader)
                    } else if Self.equal(name, "apns-id") {
                        Self.set(&apnsID, value, "apns-id", &duplicateHeader)
                    }
                case 10: if Self.equal(name, "apns-topic") { Self.set(&topic, value, "apns-topic", &duplicateHeader) }
                case 13:
                    if Self.equal(name, "authorization") {
                        Self.set(&authorization, value, "authorization", &duplicateHeader)
                    } else if Self.equal(name, "apns-priority") {
                        Self.set(&priority, value, "apns-priority", &duplicateHeader)
                    }
                case 14:
                    if Self.equal(name, "apns-push-type") {
                        Self.set(&pushType, value, "apns-push-type", &duplicateHeader)
                    }
                case 15:
                    if Self.equal(name, "apns-expiration") {
                        Self.set(&expiration, value, "apns-expiration", &duplicateHeader)
                    } else if Self.equal(name, "apns-channel-id") {
                        Self.set(&channelID, value, "apns-channel-id", &duplicateHeader)
                    } else if Self.equal(name, "apns-request-id") {
                        Self.set(&requestID, value, "apns-request-id", &duplicateHeader)
                    }
                case 16:
                    if Self.equal(name, "apns-collapse-id") {
                        Self.set(&collapseID, value, "apns-collapse-id", &duplicateHeader)
                    }
                default: break
                }
            }
        }
    }

    /// Whether `bytes` are exactly `literal` (the caller checked the length).
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { literal in
            guard literal.count == bytes.count else { return false }
            for index in 0..<bytes.count where bytes[index] != literal[index] { return false }
            return true
        }
    }

    private static func set(_ field: inout String?, _ value: String, _ name: String, _ duplicate: inout String?) {
        if field != nil {
            duplicate = duplicate ?? name
        } else {
            field = value
        }
    }
}
