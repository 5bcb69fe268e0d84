import Foundation
import Liveline

extension MappedEvent {
    /// The inbox row for this event. The order key becomes one integer: a sequence as is, a
    /// timestamp in milliseconds, a status by its rank; a source without one orders by
    /// receipt (milliseconds), which is the best a sender without order can give.
    public func inboxEvent(source: String, body: [UInt8], headers: [String: String], receivedAt: Date) -> InboxEvent {
        let order: Int64 = switch orderKey {
        case .sequence(let value)?: Int64(value)
        case .timestamp(let millis)?: millis
        case .statusRank(let rank, _)?: Int64(rank)
        case nil: Int64((receivedAt.timeIntervalSince1970 * 1000).rounded(.down))
        }
        return InboxEvent(
            source: source, eventID: eventID, eventType: eventType, activityKey: activityKey, orderKey: order,
            receivedAt: receivedAt, body: body, headers: headers
        )
    }
}
