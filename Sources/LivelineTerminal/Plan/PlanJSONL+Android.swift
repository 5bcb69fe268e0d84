import Liveline
import LivelineFCM

extension PlanJSONL {
    /// One FCM message as a line: `activity`, `offset` and `time` (when it is sent), `event`,
    /// `priority` (`HIGH` or `NORMAL`), `ttl` (`"300s"`), `collapse_key` (or null), `message` (the
    /// HTTP v1 `message` object without its target: `data` and `android`, exactly as sent),
    /// `bytes` (of data keys and values), `reason`, `decided` (the engine's decision's offset,
    /// earlier when the app's update rate held it) and `platform`.
    mutating func androidLine(_ message: AndroidMessage) {
        var writer = JSONWriter(capacity: message.data.byteCount + 768)
        writer.raw(#"{"activity":"#)
        writer.string(message.activityName)
        writer.raw(#","offset":"#)
        writer.seconds(millis: message.time - start)
        writer.raw(#","time":"#)
        writer.string(UTCTime.format(message.time))
        writer.raw(#","event":"#)
        writer.string(message.event.rawValue)
        writer.raw(#","priority":"#)
        writer.string(message.priority.rawValue)
        writer.raw(#","ttl":"#)
        writer.string(message.ttl)
        writer.raw(#","collapse_key":"#)
        if let key = message.collapseKey { writer.string(key) } else { writer.raw("null") }
        writer.raw(#","message":"#)
        writer.raw(FCMSendRequest.message(message))
        writer.raw(#","bytes":"#)
        writer.int(message.data.byteCount)
        writer.raw(#","reason":"#)
        writer.string(message.reason.description)
        writer.raw(#","decided":"#)
        writer.seconds(millis: message.decidedAt - start)
        writer.raw(#","platform":"android"}"#)
        emit(String(decoding: writer.bytes, as: UTF8.self))
    }
}
