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
            switch name {
            case ":method": Self.set(&method, value, name, &duplicateHeader)
            case ":path": Self.set(&path, value, name, &duplicateHeader)
            case "authorization": Self.set(&authorization, value, name, &duplicateHeader)
            case "apns-push-type": Self.set(&pushType, value, name, &duplicateHeader)
            case "apns-topic": Self.set(&topic, value, name, &duplicateHeader)
            case "apns-priority": Self.set(&priority, value, name, &duplicateHeader)
            case "apns-expiration": Self.set(&expiration, value, name, &duplicateHeader)
            case "apns-id": Self.set(&apnsID, value, name, &duplicateHeader)
            case "apns-collapse-id": Self.set(&collapseID, value, name, &duplicateHeader)
            case "apns-channel-id": Self.set(&channelID, value, name, &duplicateHeader)
            case "apns-request-id": Self.set(&requestID, value, name, &duplicateHeader)
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
