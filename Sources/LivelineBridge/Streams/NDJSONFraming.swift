/// Newline-delimited JSON: each line (LF or CRLF) is one message; a line of nothing but spaces
/// is a keep-alive. A line longer than `maximumMessage` bytes is skipped to its end and
/// reported once, so one oversized event cannot grow the buffer without bound.
package struct NDJSONFraming: StreamFraming {
    let maximumMessage: Int
    private var line: [UInt8] = []
    /// Bytes of the current line skipped for being too long; 0 when not skipping.
    private var skipped = 0

    package init(maximumMessage: Int) {
        self.maximumMessage = max(1, maximumMessage)
    }

    package mutating func feed(_ bytes: some Collection<UInt8>) -> [StreamMessage] {
        var messages: [StreamMessage] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if skipped > 0 {
                    messages.append(.tooLarge(bytes: skipped))
                    skipped = 0
                } else {
                    if line.last == UInt8(ascii: "\r") { line.removeLast() }
                    let blank = line.allSatisfy {
                        $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r")
                    }
                    messages.append(blank ? .keepAlive : .event(body: line, fields: [:]))
                }
                line.removeAll(keepingCapacity: true)
            } else if skipped > 0 {
                skipped += 1
            } else if line.count >= maximumMessage {
                skipped = line.count + 1
                line.removeAll(keepingCapacity: false)
            } else {
                line.append(byte)
            }
        }
        return messages
    }
}
