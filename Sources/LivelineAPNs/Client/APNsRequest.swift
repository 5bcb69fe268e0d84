import LivelineCore
import NIOCore

/// One HTTP/2 request to APNs: a push to a device token, a broadcast, or a channel-management call.
///
/// A push to a device token (``push(token:headers:payload:apnsID:)``) keeps its parts as given
/// (the token, the `PushHeaders`, the payload bytes) and the connection writes them straight
/// into its frames: no path string, header list or body buffer is built for it, which on a
/// fan-out of a hundred thousand pushes would be three allocations and a copy of the payload
/// each. ``path``, ``headers`` and ``body`` read the same for it as for any other request, and
/// setting one of them turns it into a request of the general form.
public struct APNsRequest: Sendable {
    /// An HTTP method APNs uses.
    public enum Method: String, Sendable {
        /// Reads a channel or lists them.
        case get = "GET"
        /// Sends a push or a broadcast, or creates a channel.
        case post = "POST"
        /// Deletes a channel.
        case delete = "DELETE"
    }

    /// How the request is kept.
    enum Content: Sendable {
        /// A POST to `/3/device/<token>` with `headers`' fields (then `apns-id`, if any) and `payload` as the body.
        case devicePush(token: String, headers: PushHeaders, payload: [UInt8], apnsID: String?)
        case general(path: String, headers: [(name: String, value: String)], body: ByteBuffer?)
    }

    /// The HTTP method: POST for pushes, GET and DELETE for channel management.
    public var method: Method
    var content: Content

    private init(method: Method, content: Content) {
        self.method = method
        self.content = content
    }

    /// A request of the general form: any path, headers and body.
    public init(method: Method = .post, path: String, headers: [(name: String, value: String)], body: ByteBuffer?) {
        self.method = method
        content = .general(path: path, headers: headers, body: body)
    }

    /// `/3/device/<token>`, `/4/broadcasts/apps/<bundle>`, `/1/apps/<bundle>/channels`, …
    public var path: String {
        get {
            switch content {
            case .devicePush(let token, _, _, _): Self.devicePathPrefix + token
            case .general(let path, _, _): path
            }
        }
        set {
            content = .general(path: newValue, headers: headers, body: body)
        }
    }

    /// Headers other than the pseudo-headers and `authorization`, which the client adds.
    public var headers: [(name: String, value: String)] {
        get {
            switch content {
            case .devicePush(_, let headers, _, let apnsID):
                var fields = headers.fields
                if let apnsID { fields.append(("apns-id", apnsID)) }
                return fields
            case .general(_, let headers, _):
                return headers
            }
        }
        set {
            content = .general(path: path, headers: newValue, body: body)
        }
    }

    /// The body: a push's payload, a channel call's JSON, or nil for none.
    public var body: ByteBuffer? {
        get {
            switch content {
            case .devicePush(_, _, let payload, _): ByteBuffer(bytes: payload)
            case .general(_, _, let body): body
            }
        }
        set {
            content = .general(path: path, headers: headers, body: newValue)
        }
    }

    /// The path of a push to a device token, before the token (the header encoder writes the
    /// same bytes).
    static let devicePathPrefix = "/3/device/"

    /// A Live Activity push to a device token (an update token or a push-to-start token).
    public static func push(token: String, headers: PushHeaders, payload: [UInt8], apnsID: String? = nil) -> APNsRequest
    {
        APNsRequest(
            method: .post, content: .devicePush(token: token, headers: headers, payload: payload, apnsID: apnsID))
    }

    /// A broadcast push to every subscriber of a channel (iOS 18). There is no `apns-topic`.
    public static func broadcast(
        bundleID: String, channel: String, priority: Priority, expiration: Int64, payload: [UInt8]
    ) -> APNsRequest {
        APNsRequest(
            path: "/4/broadcasts/apps/" + bundleID,
            headers: [
                ("apns-channel-id", channel), ("apns-push-type", "liveactivity"),
                ("apns-priority", String(priority.apnsValue)), ("apns-expiration", String(expiration)),
            ],
            body: ByteBuffer(bytes: payload)
        )
    }
}
