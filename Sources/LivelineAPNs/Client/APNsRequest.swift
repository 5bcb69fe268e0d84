import Liveline
import NIOCore

/// One HTTP/2 request to APNs: a push to a device token, a broadcast, or a channel-management call.
public struct APNsRequest: Sendable {
    public enum Method: String, Sendable {
        case get = "GET", post = "POST", delete = "DELETE"
    }

    public var method: Method
    /// `/3/device/<token>`, `/4/broadcasts/apps/<bundle>`, `/1/apps/<bundle>/channels`, …
    public var path: String
    /// Headers other than the pseudo-headers and `authorization`, which the client adds.
    public var headers: [(name: String, value: String)]
    public var body: ByteBuffer?

    public init(method: Method = .post, path: String, headers: [(name: String, value: String)], body: ByteBuffer?) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// A Live Activity push to a device token (an update token or a push-to-start token).
    public static func push(token: String, headers: PushHeaders, payload: [UInt8], apnsID: String? = nil) -> APNsRequest {
        var fields = headers.fields
        if let apnsID { fields.append(("apns-id", apnsID)) }
        return APNsRequest(path: "/3/device/" + token, headers: fields, body: ByteBuffer(bytes: payload))
    }

    /// A broadcast push to every subscriber of a channel (iOS 18). There is no `apns-topic`.
    public static func broadcast(bundleID: String, channel: String, priority: Priority, expiration: Int64, payload: [UInt8]) -> APNsRequest {
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
