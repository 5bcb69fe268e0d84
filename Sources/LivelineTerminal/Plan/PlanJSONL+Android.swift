import Liveline
import LivelineFCM

extension PlanJSONL {
    /// One FCM message as a line: `activity`, `offset` and `time` (when it is sent), `event`,
    /// `priority` (`HIGH` or `NORMAL`), `ttl` (`"300s"`), `collapse_key` (or null), `message` (the
    /// HTTP v1 `message` object without its target: `data` and `android`, exactly as sent),
    /// `bytes` (of data keys and values), `reason`, `decided` (the engine's decision's offset,
    /// earlier when the app's update rate held it) and `platform`.
    mutating func androidLine(_ message: AndroidMessage) {
        var writer = beginLine(
            activity: message.activityName, time: message.time, event: message.event,
            capacity: message.data.byteCount + 768)
        writer.string(message.priority.rawValue)
        writer.raw(#","ttl":"#)
        writer.string(message.ttl)
        writer.raw(#","collapse_key":"#)
        if let key = message.collapseKey { writer.string(key) } else { writer.raw("null") }
        writer.raw(#","message":"#)
        writer.raw(FCMSendRequest.message(message))
        Self.writeSize(message.data.byteCount, reason: message.reason.description, into: &writer)
        writer.raw(#","decided":"#)
        writer.seconds(millis: message.decidedAt - start)
        writer.raw(#","platform":"android"}"#)
        emit(String(decoding: writer.bytes, as: UTF8.self))
    }
}
