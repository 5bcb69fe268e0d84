import Hummingbird

/// The reference for the bridge's ingest benchmark: a Hummingbird 2 server with one POST route
/// that reads the whole body and answers 202 with a small JSON body, as the bridge does, but
/// verifies, maps and stores nothing. The bridge's acknowledged webhooks/s divided by this
/// route's requests/s, on the same machine in the same run, is the ratio BENCHMARKS.md records.
///
///     swift run -c release BareHummingbird 127.0.0.1 8090
let arguments = CommandLine.arguments
let host = arguments.count > 1 ? arguments[1] : "127.0.0.1"
let port = arguments.count > 2 ? Int(arguments[2]) ?? 8090 : 8090

let router = Router()
router.post("/v1/webhooks/:source") { request, context -> Response in
    _ = try await request.body.collect(upTo: 256 * 1024)
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    return Response(
        status: .accepted, headers: headers, body: .init(byteBuffer: ByteBuffer(string: #"{"status":"stored"}"#)))
}
let app = Application(router: router, configuration: .init(address: .hostname(host, port: port), serverName: nil))
try await app.runService()
