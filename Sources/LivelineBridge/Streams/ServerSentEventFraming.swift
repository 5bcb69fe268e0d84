import Liveline

/// Server-Sent Events as the WHATWG HTML standard parses them: lines end with CRLF, LF or CR;
/// `data:` lines accumulate (joined with LF) until a blank line dispatches the event; `id:`
/// sets the last event id (ignored when it holds NUL), `event:` the event's type, `retry:`
/// (digits only) the reconnection delay; a line starting with `:` is a comment, which feeds
/// send as keep-alives. One space after the colon is dropped. A byte-order mark at the very
/// start is skipped.
///
/// An event whose data passes `maximumMessage` bytes is skipped whole and reported once.
package struct ServerSentEventFraming: StreamFraming {
    let maximumMessage: Int
    private var line: [UInt8] = []
    /// Bytes of the current line beyond what is kept of it.
    private var lineOverflow = 0
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType = ""
    private var tooLarge = 0
    /// The last event id, kept across events as the standard says.
    private(set) var lastEventID: String?
    private var afterCR = false
    private var atStart = true

    package init(maximumMessage: Int, lastEventID: String? = nil) {
        self.maximumMessage = max(1, maximumMessage)
        self.lastEventID = lastEventID
    }

    package mutating func feed(_ bytes: some Collection<UInt8>) -> [StreamMessage] {
        var messages: [StreamMessage] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\r"):
                afterCR = true
                endLine(into: &messages)
            case UInt8(ascii: "\n"):
                endLine(into: &messages)
            default:
                // A line is kept up to the limit (and a field name); beyond it only counted.
                if line.count < maximumMessage + 16 { line.append(byte) } else { lineOverflow += 1 }
            }
        }
        return messages
    }

    private mutating func endLine(into messages: inout [StreamMessage]) {
        let overflow = lineOverflow
        defer {
            line.removeAll(keepingCapacity: true)
            lineOverflow = 0
        }
        if atStart {
            atStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        if line.isEmpty {
            dispatch(into: &messages)
            return
        }
        if line.first == UInt8(ascii: ":") {
            messages.append(.keepAlive)
            return
        }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var value = colon.map { line[line.index(after: $0)...] } ?? []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch name {
        case "data":
            if hasData { data.append(UInt8(ascii: "\n")) }
            hasData = true
            if data.count + value.count + overflow > maximumMessage {
                tooLarge = max(tooLarge, data.count + value.count + overflow)
            } else if tooLarge == 0 {
                data.append(contentsOf: value)
            }
        case _ where overflow > 0:
            break
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let millis = Millis(String(decoding: value, as: UTF8.self))
            {
                messages.append(.retry(millis))
            }
        default:
            break
        }
    }

    /// A blank line: the event gathered so far, if it has data.
    private mutating func dispatch(into messages: inout [StreamMessage]) {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = ""
            tooLarge = 0
        }
        if tooLarge > 0 {
            messages.append(.tooLarge(bytes: tooLarge))
            return
        }
        guard hasData else { return }
        var fields = ["sse-event": eventType.isEmpty ? "message" : eventType]
        if let lastEventID { fields["sse-id"] = lastEventID }
        messages.append(.event(body: data, fields: fields))
    }
}
