import Foundation
import Crypto
import Liveline

/// A loaded, checked bridge configuration: where to listen, where to store, how to reach APNs,
/// who may use the registry API, and the webhook sources. One that loads is safe to serve.
///
/// ``BridgeConfigurationLoader`` makes one from YAML.
public struct BridgeConfiguration: Sendable {
    /// The configuration file, as the user named it.
    public var file: String
    /// The address the HTTP server binds (`listen:`).
    public var listen: ListenAddress
    /// Where the store is: a SQLite file or a PostgreSQL database (`store:`).
    public var store: StoreLocation
    /// Where the store lives when the file names none (``BridgeStateDirectory``); nil when it
    /// names one. That directory is created before the store is opened.
    public var stateDirectory: BridgeStateDirectory?
    /// nil: the embedded mock APNs, so a demo needs no Apple account.
    public var apns: APNsSettings?
    /// Where Android followers' messages go; nil: the embedded mock FCM.
    public var fcm: FCMSettings?
    /// The registry API's keys, as SHA-256 hashes.
    public var apiKeys: [APIKeyHash]
    /// The largest webhook body accepted, in bytes; larger ones get a 413.
    public var bodyLimit: Int
    /// How many object keys (`body-keys`) and levels of nesting (`body-depth`) a webhook body
    /// may have; past either, 413. Setting it sets every source's.
    public var jsonLimits: JSONParser.Limits {
        didSet { for index in sources.indices { sources[index].jsonLimits = jsonLimits } }
    }
    /// The most HTTP connections open at once; one more is closed as it arrives, with a warning.
    public var maxConnections: Int
    /// How long a connection may sit idle, or half-way through sending a request, before the
    /// bridge closes it (`idle-timeout`).
    public var idleTimeout: Duration
    /// The longest a graceful stop (SIGTERM) takes: pushes in flight are waited for until then,
    /// and what is still unanswered is given back to the store for the next instance.
    public var drainTimeout: Duration
    /// How long the store keeps events and dead letters.
    public var retention: RetentionPolicy
    /// The sources, in file order.
    public var sources: [SourceConfiguration]
    /// `app:`: the app's Swift source, resolved against the file's folder; empty when not given.
    /// The CLI checks the sources against its types (``appDiagnostics(using:)``).
    public var app: [String] = []
    /// Where `app:` is written.
    public var appLocation: SourceLocation?

    /// A configuration with the parts given; ``BridgeConfigurationLoader`` builds these from the file.
    public init(
        file: String, listen: ListenAddress = .standard, store: StoreLocation = .standard, apns: APNsSettings? = nil,
        apiKeys: [APIKeyHash] = [], bodyLimit: Int = BridgeConfiguration.standardBodyLimit,
        jsonLimits: JSONParser.Limits = BridgeConfiguration.standardJSONLimits,
        maxConnections: Int = BridgeConfiguration.standardMaxConnections,
        idleTimeout: Duration = BridgeConfiguration.standardIdleTimeout,
        drainTimeout: Duration = BridgeConfiguration.standardDrainTimeout,
        retention: RetentionPolicy = .standard, sources: [SourceConfiguration],
        stateDirectory: BridgeStateDirectory? = nil
    ) {
        self.file = file
        self.listen = listen
        self.store = store
        self.stateDirectory = stateDirectory
        self.apns = apns
        self.apiKeys = apiKeys
        self.bodyLimit = bodyLimit
        self.jsonLimits = jsonLimits
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.drainTimeout = drainTimeout
        self.retention = retention
        self.sources = sources.map { source in
            var source = source
            source.jsonLimits = jsonLimits
            return source
        }
    }

    /// 256 KiB: far above any delivery or match webhook, small enough to refuse junk early.
    public static let standardBodyLimit = 256 * 1024

    /// 10,000 keys, 64 levels: a Stripe or Shopify event has a few hundred keys and fewer than
    /// ten levels; a body at 10,000 keys still parses in milliseconds (`BENCHMARKS.md`).
    public static let standardJSONLimits = JSONParser.Limits(depth: 64, keys: 10_000)

    /// 75 seconds: longer than the keep-alive senders' HTTP clients use between webhooks, short
    /// enough that a vanished or stalled sender does not hold a socket for long.
    public static let standardIdleTimeout = Duration.seconds(75)

    /// 4,096: webhook senders keep a few connections each; well under a default 1,024-per-process
    /// descriptor limit raised for servers, and far under the store's and the kernel's limits.
    public static let standardMaxConnections = 4096

    /// 10 s: a third of Kubernetes' default 30 s grace period, so the drain ends well before
    /// the kill; APNs answers in milliseconds, so pushes in flight are answered long before.
    public static let standardDrainTimeout = Duration.seconds(10)

    /// The source that `POST /v1/webhooks/{name}` names.
    public func source(named name: String) -> SourceConfiguration? { sources.first { $0.name == name } }
}

/// The address the bridge's HTTP server binds.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// A host name or IP address, without brackets.
    public var host: String
    /// The TCP port, 1 to 65535 (0 only where a caller asks for any free port).
    public var port: Int

    /// The address `host`:`port`.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// 127.0.0.1:8080: this machine only until the user says otherwise.
    public static let standard = ListenAddress(host: "127.0.0.1", port: 8080)

    /// `host:port`, or `[::1]:8080` for an IPv6 address. Nil when it is not one.
    public init?(parsing text: String) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            if host.contains(":") { return nil }
        }
        guard !host.isEmpty, !host.contains(" "), let number = Int(port), (1...65535).contains(number) else {
            return nil
        }
        self.init(host: String(host), port: number)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// APNs credentials, as `liveline play` takes them.
public struct APNsSettings: Sendable, Hashable, CustomStringConvertible {
    /// Where the `.p8` key's PEM text comes from.
    public enum Key: Sendable, Hashable {
        /// A `.p8` file, resolved against the configuration file's folder.
        case file(String)
        /// The PEM itself, read from this environment variable when the bridge starts.
        case environment(String)
    }

    /// One of APNs' two environments (``APNsEnvironment``).
    public typealias Environment = APNsEnvironment

    /// How often a halted app and environment is probed when nothing says otherwise.
    public static let standardProbeInterval: Duration = .seconds(5)

    /// Where the key's PEM text comes from.
    public var key: Key
    /// The key's 10-character Key ID.
    public var keyID: String
    /// The 10-character Team ID that owns the key.
    public var teamID: String
    /// The app's bundle id; nil takes each scenario's.
    public var topic: String?
    /// The environment of a token registered without one.
    public var environment: Environment
    /// The environments the bridge sends to, with the one key (`environments:`; by default
    /// `environment` alone). A token registered for another is refused.
    public var environments: [Environment]
    /// How often sending halted by a setup error is tried again, with one waiting push.
    public var probeInterval: Duration

    /// Settings with every part given; `environments` nil serves `environment` alone.
    public init(
        key: Key, keyID: String, teamID: String, topic: String?, environment: Environment,
        environments: [Environment]? = nil, probeInterval: Duration = APNsSettings.standardProbeInterval
    ) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.environment = environment
        self.environments = Array(Set((environments ?? []) + [environment])).sorted()
        self.probeInterval = probeInterval
    }

    /// Where the key is and whose it is, never the key.
    public var description: String {
        let place =
            switch key {
            case .file(let path): path
            case .environment(let name): "$\(name)"
            }
        let served =
            environments == [environment]
            ? environment.rawValue : environments.map(\.rawValue).joined(separator: " and ")
        return "APNs \(served) (key \(keyID) from \(place), team \(teamID))"
    }
}

/// One registry API key, kept as its SHA-256 so the file holds no usable key.
///
/// Make one with `printf %s "$KEY" | sha256sum` and write `sha256:<the 64 hex digits>`.
public struct APIKeyHash: Sendable, Hashable, CustomStringConvertible {
    /// The key's SHA-256, 32 bytes; a request's key is hashed and compared in constant time.
    public let digest: [UInt8]

    /// From `sha256:<64 hex digits>`; nil otherwise.
    public init?(parsing text: String) {
        guard text.hasPrefix("sha256:") else { return nil }
        let hex = text.dropFirst("sha256:".count)
        guard hex.utf8.count == 64, let bytes = SignatureEncoding.hex.decode(hex.utf8) else { return nil }
        digest = bytes
    }

    /// Whether `key`, as presented in a request, hashes to this digest (compared in constant time).
    public func matches(_ key: String) -> Bool {
        let presented = Array(SHA256.hash(data: Array(key.utf8)))
        return digest.withUnsafeBytes { expected in presented.withUnsafeBytes { ConstantTime.equals(expected, $0) } }
    }

    /// The first 8 hex digits, enough to tell keys apart in logs.
    public var description: String {
        "sha256:" + HexText.encode(digest.prefix(4)) + "…"
    }
}
