import Foundation
import Liveline

extension MappedEvent {
    /// The inbox row for this event, with its order key as `InboxOrder` makes it.
    public func inboxEvent(
        source: SourceConfiguration, body: [UInt8], headers: [String: String], receivedAt: Millis
    ) -> InboxEvent {
        let order = InboxOrder.key(orderKey, sourceIsOrdered: source.order != nil, receivedAt: receivedAt)
        return InboxEvent(
            source: source.name, eventID: eventID, eventType: eventType, activityKey: activityKey, orderKey: order,
            receivedAt: receivedAt, body: body, headers: headers
        )
    }
}
