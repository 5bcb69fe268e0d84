import NIOHPACK

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

    init(_ headers: HPACKHeaders) {
        for (name, value, _) in headers {
            // Every header of interest starts with ':' or 'a'; skip the rest without comparing.
            guard let first = name.utf8.first, first == UInt8(ascii: ":") || first == UInt8(ascii: "a") else { continue }
            // Dispatch on the length first: a failed String comparison is not free, and most
            // names then need one comparison at most.
            switch name.utf8.count {
            case 5: if name == ":path" { Self.set(&path, value, name, &duplicateHeader) }
            case 7:
                if name == ":method" {
                    Self.set(&method, value, name, &duplicateHeader)
                } else if name == "apns-id" {
                    Self.set(&apnsID, value, name, &duplicateHeader)
                }
            case 10: if name == "apns-topic" { Self.set(&topic, value, name, &duplicateHeader) }
            case 13:
                if name == "authorization" {
                    Self.set(&authorization, value, name, &duplicateHeader)
                } else if name == "apns-priority" {
                    Self.set(&priority, value, name, &duplicateHeader)
                }
            case 14: if name == "apns-push-type" { Self.set(&pushType, value, name, &duplicateHeader) }
            case 15:
                if name == "apns-expiration" {
                    Self.set(&expiration, value, name, &duplicateHeader)
                } else if name == "apns-channel-id" {
                    Self.set(&channelID, value, name, &duplicateHeader)
                } else if name == "apns-request-id" {
                    Self.set(&requestID, value, name, &duplicateHeader)
                }
            case 16: if name == "apns-collapse-id" { Self.set(&collapseID, value, name, &duplicateHeader) }
            default: break
            }
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
