import Foundation
import HTTPTypes
import Liveline

/// What a stream does with one event, as the webhook route does with a webhook: map it with its
/// source's rules, store it through the bridge's shared ``InboxWriter`` (durable, deduplicated
/// by event id, group-committed with webhooks), then wake the dispatcher.
///
/// A stream has nobody to answer 422 to: an event the rules cannot read is reported back for
/// logging and counting, and the stream goes on.
struct StreamIngest: Sendable {
    enum Outcome: Sendable, Hashable {
        /// Stored; `ignored` when no rule names its type (recorded, nothing pushed).
        case stored(MappedEvent, receivedAt: Millis, ignored: Bool)
        /// The inbox already holds an event with this id (a recovered event the stream had
        /// delivered, or the other way round).
        case duplicate(MappedEvent, receivedAt: Millis)
        /// The source's rules cannot read it.
        case unmappable(EventMappingError)
    }

    let source: SourceConfiguration
    let mapper: EventMapper
    let keptHeaders: KeptHeaders
    let inbox: InboxWriter
    let wake: @Sendable () -> Void
    let clock: @Sendable () -> Millis

    init(
        source: SourceConfiguration, inbox: InboxWriter, wake: @escaping @Sendable () -> Void,
        clock: @escaping @Sendable () -> Millis
    ) {
        self.source = source
        mapper = EventMapper(source: source)
        keptHeaders = KeptHeaders(source: source)
        self.inbox = inbox
        self.wake = wake
        self.clock = clock
    }

    /// Maps and stores one event. `fields` are the framing's fields (`sse-id`, `sse-event`),
    /// read by the rules as headers.
    /// - Throws: the store's error; nothing of the event was stored.
    func ingest(body: [UInt8], fields: [String: String]) async throws -> Outcome {
        var headers = HTTPFields()
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        let mapped: MappedEvent
        do {
            mapped = try mapper.map(body: body, headers: headers)
        } catch {
            return .unmappable(error)
        }
        let receivedAt = clock()
        let event = mapped.inboxEvent(
            source: source, body: body, headers: keptHeaders.select(from: headers), receivedAt: receivedAt)
        switch try await inbox.insert(event) {
        case .stored:
            wake()
            return .stored(mapped, receivedAt: receivedAt, ignored: mapped.isIgnored)
        case .duplicate:
            return .duplicate(mapped, receivedAt: receivedAt)
        }
    }
}
