import Foundation
import NIOHTTP1

/// One HTTP/1.1 request, whole: its head and its body.
struct HTTP1Request {
    var head: HTTPRequestHead
    var body: [UInt8]

    /// The path and the decoded query parameters of the request target.
    var target: (path: String, query: [String: String]) {
        guard let components = URLComponents(string: head.uri) else { return (head.uri, [:]) }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return (components.path.isEmpty ? "/" : components.path, query)
    }
}

/// Assembles ``HTTP1Request``s from NIO's request parts. A body chunk that would take the body
/// past `maxBody` bytes is dropped (the mock's requests are small; a dashboard reads none).
struct HTTP1RequestAssembler {
    let maxBody: Int
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(maxBody: Int) {
        self.maxBody = maxBody
    }

    /// Takes one part; returns the request its `.end` completes.
    mutating func take(_ part: HTTPServerRequestPart) -> HTTP1Request? {
        switch part {
        case .head(let requestHead):
            head = requestHead
            body = []
            return nil
        case .body(let buffer):
            if body.count + buffer.readableBytes <= maxBody { body.append(contentsOf: buffer.readableBytesView) }
            return nil
        case .end:
            guard let requestHead = head else { return nil }
            head = nil
            return HTTP1Request(head: requestHead, body: body)
        }
    }
}
