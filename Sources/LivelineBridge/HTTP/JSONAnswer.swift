import Foundation
import Hummingbird
import HTTPTypes
import Liveline

/// JSON answers, written with the payload encoder's `JSONWriter` from ordered objects, so keys
/// come out in the order the code lists them (people read these answers with curl).
enum JSONAnswer {
    /// A response with `object` as its JSON body.
    static func make(_ status: HTTPResponse.Status, _ object: KeyValuePairs<String, StateValue>) -> Response {
        make(status, StateObject(object.map { ($0.key, $0.value) }))
    }

    static func make(_ status: HTTPResponse.Status, _ object: StateObject) -> Response {
        var writer = JSONWriter(capacity: 256)
        writer.object(object)
        writer.raw(UInt8(ascii: "\n"))
        return make(status, bytes: writer.bytes, contentType: "application/json")
    }

    /// A response with these bytes as its body.
    static func make(_ status: HTTPResponse.Status, bytes: [UInt8], contentType: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// An instant as ISO-8601 in UTC with three digits of milliseconds, as JSON shows times
    /// (`2026-11-23T13:05:00.000Z`; `UTCTime` leaves out milliseconds of zero).
    static func time(_ instant: Millis) -> StateValue {
        let text = UTCTime.format(instant)
        return .string(text.contains(".") ? text : String(text.dropLast()) + ".000Z")
    }

    /// `.string(text)`, or `.null` for nil.
    static func text(_ text: String?) -> StateValue {
        text.map(StateValue.string) ?? .null
    }
}
