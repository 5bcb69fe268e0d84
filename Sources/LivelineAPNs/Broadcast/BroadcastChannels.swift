import LivelineCore
import NIOCore

/// A broadcast channel as APNs describes it.
public struct BroadcastChannelInfo: Sendable, Hashable {
    /// The channel id APNs assigned (`apns-channel-id`), base64.
    public var id: String
    /// 0: no message is stored (a higher budget); 1: the latest message is kept for up to 8 hours.
    public var messageStoragePolicy: Int
    /// The push type the channel carries: `LiveActivity`.
    public var pushType: String
}

/// What went wrong managing channels, in a user's words.
public struct ChannelError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Broadcast channel management (iOS 18): create, read, delete and list an app's channels.
///
/// Apple serves these on their own hosts (`api-manage-broadcast[.sandbox].push.apple.com`, ports
/// 2195 for sandbox and 2196 for production): give this a client connected there, or to the
/// mock, which serves everything on one port.
public struct BroadcastChannels: Sendable {
    /// The client the requests go through, connected to the channel-management host.
    public let client: APNsClient
    /// The app whose channels these are.
    public let bundleID: String

    /// Channel management for `bundleID` through `client`.
    public init(client: APNsClient, bundleID: String) {
        self.client = client
        self.bundleID = bundleID
    }

    /// Sandbox channel management: `api-manage-broadcast.sandbox.push.apple.com:2195`.
    public static let sandboxManagement = APNsEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195)
    /// Production channel management: `api-manage-broadcast.push.apple.com:2196`.
    public static let productionManagement = APNsEndpoint(host: "api-manage-broadcast.push.apple.com", port: 2196)

    /// Creates a channel and returns its id (base64).
    public func create(storagePolicy: Int = 0) async throws -> String {
        guard storagePolicy == 0 || storagePolicy == 1 else {
            throw ChannelError(
                description: "the message storage policy is 0 (none, higher budget) or 1 (keep the latest message)")
        }
        let body = ByteBuffer(string: #"{"message-storage-policy":\#(storagePolicy),"push-type":"LiveActivity"}"#)
        let response = try await client.send(APNsRequest(path: "/1/apps/\(bundleID)/channels", headers: [], body: body))
        guard response.status == 201, let id = response.channelID else {
            throw Self.failure("create a channel", response)
        }
        return id
    }

    /// A channel's settings.
    public func read(_ id: String) async throws -> BroadcastChannelInfo {
        let response = try await client.send(
            APNsRequest(
                method: .get, path: "/1/apps/\(bundleID)/channels", headers: [("apns-channel-id", id)], body: nil))
        guard response.status == 200, case .object(let object)? = try? JSONParser.parse(response.body) else {
            throw Self.failure("read channel \(id)", response)
        }
        var policy = 0
        if case .int(let value)? = object["message-storage-policy"] { policy = value }
        var type = "LiveActivity"
        if case .string(let value)? = object["push-type"] { type = value }
        return BroadcastChannelInfo(id: id, messageStoragePolicy: policy, pushType: type)
    }

    /// Deletes a channel.
    public func delete(_ id: String) async throws {
        let response = try await client.send(
            APNsRequest(
                method: .delete, path: "/1/apps/\(bundleID)/channels", headers: [("apns-channel-id", id)], body: nil))
        guard response.status == 204 || response.status == 200 else {
            throw Self.failure("delete channel \(id)", response)
        }
    }

    /// The ids of every channel of the app.
    public func list() async throws -> [String] {
        let response = try await client.send(
            APNsRequest(method: .get, path: "/1/apps/\(bundleID)/all-channels", headers: [], body: nil))
        guard response.status == 200, case .object(let object)? = try? JSONParser.parse(response.body),
            case .array(let items)? = object["channels"]
        else { throw Self.failure("list channels", response) }
        return items.compactMap { if case .string(let id) = $0 { return id } else { return nil } }
    }

    static func failure(_ what: String, _ response: APNsResponse) -> ChannelError {
        var text = "could not \(what): APNs answered \(response)"
        if case .misconfigured(let problem) = PushServiceAnswer(response) { text += "; " + problem.fix }
        return ChannelError(description: text)
    }
}
