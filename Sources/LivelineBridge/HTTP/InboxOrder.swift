import Liveline

/// The `Int64` order key an event is stored under, from what its source's rules found.
///
/// - A sequence number is stored as it is; a timestamp as UNIX milliseconds; a status as its
///   rank in the source's list.
/// - A source without an order rule orders by arrival: the key is the receipt time in UNIX
///   milliseconds. That is meaningful across bridge instances sharing one PostgreSQL (a
///   counter in one process would not be), and events received in the same millisecond keep
///   their arrival order, because the inbox breaks ties by its own sequence number.
/// - An event of a source with an order rule that has no key can only be an ignored one (the
///   mapper refuses others): its status is not ranked, or it has no order value. It is stored
///   under 0, below every real key, so that recording it can never make a later event of the
///   activity look older than it is.
enum InboxOrder {
    static func key(_ orderKey: OrderKey?, sourceIsOrdered: Bool, receivedAt: Millis) -> Int64 {
        switch orderKey {
        case .sequence(let value): Int64(value)
        case .timestamp(let millis): millis
        case .statusRank(let rank, _): Int64(rank)
        case nil: sourceIsOrdered ? 0 : receivedAt
        }
    }
}
