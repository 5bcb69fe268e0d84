import Foundation
import HTTPTypes
import Liveline

/// Fetches what a stream missed during a gap from its source's recover URL (a REST timeline),
/// and splits the answer into event bodies shaped as the stream's.
///
/// The answer may be a JSON list of events, an object holding the list at
/// ``RecoverSettings/events``, or newline-delimited JSON. Events of a list are written back as
/// JSON bytes for the inbox; they are recognised as events the stream already delivered by their
/// id (a recovering source must have `event-id`), so overlap costs nothing.
struct GapRecovery: Sendable {
    let settings: RecoverSettings
    let headers: [FeedHeader]
    let caFile: String?
    let maximumAnswer: Int

    /// The event bodies at the URL filled with these values, in the timeline's order.
    func fetch(lastEventID: String?, since: Millis?, activityKey: String?) async throws(StreamError) -> [[UInt8]] {
        let sinceText = since.map(UTCTime.format)
        let url: FeedURL
        do {
            url = try settings.url(lastEventID: lastEventID, since: sinceText, activityKey: activityKey)
        } catch {
            throw .recoverFailed(
                url: settings.template.split(separator: "?").first.map(String.init) ?? "", cause: error.message)
        }
        var fields = HTTPFields()
        fields[.accept] = "application/json, application/x-ndjson"
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields[name] = header.value }
        }
        let answer: WebhookSender.Answer
        do {
            answer = try await WebhookSender(maximumAnswer: maximumAnswer, caFile: caFile)
                .send(to: Self.text(of: url), method: .get, headers: fields, body: [])
        } catch {
            throw .recoverFailed(url: url.description, cause: error.description)
        }
        guard answer.status == 200 else {
            let text = String(decoding: answer.body.prefix(200), as: UTF8.self).split(whereSeparator: \.isNewline)
                .joined(separator: " ")
            throw .recoverFailed(url: url.description, cause: "HTTP \(answer.status)\(text.isEmpty ? "" : ": \(text)")")
        }
        guard !answer.truncated else {
            throw .recoverFailed(
                url: url.description,
                cause: "the answer is over \(maximumAnswer) bytes; narrow it with {since} or {last-event-id} in the URL"
            )
        }
        return try events(in: answer.body, url: url)
    }

    /// The events of an answer.
    func events(in body: [UInt8], url: FeedURL) throws(StreamError) -> [[UInt8]] {
        if let document = try? JSONParser.parse(body) {
            var list = document
            if let pointer = settings.events {
                guard let found = pointer.resolve(in: document) else {
                    throw .recoverFailed(
                        url: url.description, cause: "the answer has nothing at \(pointer) (recover.events)")
                }
                list = found
            }
            guard case .array(let items) = list else {
                let hint = settings.events == nil ? " (set recover.events to where the list is, like /timeline)" : ""
                throw .recoverFailed(
                    url: url.description, cause: "expected a JSON list of events, found \(list.type)\(hint)")
            }
            return items.map { item in
                var writer = JSONWriter()
                writer.value(item)
                return writer.bytes
            }
        }
        var framing = NDJSONFraming(maximumMessage: maximumAnswer)
        var events: [[UInt8]] = []
        for message in framing.feed(body + [UInt8(ascii: "\n")]) {
            guard case .event(let line, _) = message else { continue }
            do {
                _ = try JSONParser.parse(line)
            } catch {
                throw .recoverFailed(
                    url: url.description, cause: "the answer is neither JSON nor newline-delimited JSON (\(error))")
            }
            events.append(line)
        }
        return events
    }

    private static func text(of url: FeedURL) -> String {
        "\(url.tls ? "https" : "http")://\(url.authority)\(url.target)"
    }
}
