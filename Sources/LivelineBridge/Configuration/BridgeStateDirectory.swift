import Crypto
import Foundation

/// Where a bridge keeps its SQLite store when its configuration names none: a file of its own
/// per configuration, under the user's state directory, so that two demos never share events or
/// activities and nothing is written into the directory the bridge was started from.
///
/// The directory is `$LIVELINE_STATE_DIR`, else `$XDG_STATE_HOME/liveline`, else
/// `~/.local/state/liveline` (the XDG default), else `liveline` in the temporary directory. The
/// file is named for the configuration and its absolute path, like
/// `stripe-3f2a9c1e.sqlite` for `Scenarios/sources/stripe.yaml`: the same configuration finds its
/// store again from any working directory, and two `bridge.yaml` in different folders do not meet.
public struct BridgeStateDirectory: Sendable, Hashable {
    /// The directory, absolute.
    public var path: String

    /// The directory the environment names.
    public init(environment: [String: String]) {
        if let explicit = environment["LIVELINE_STATE_DIR"], !explicit.isEmpty {
            path = explicit
        } else if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            path = state + "/liveline"
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            path = home + "/.local/state/liveline"
        } else {
            path = (NSTemporaryDirectory() as NSString).appendingPathComponent("liveline")
        }
    }

    /// The store of the configuration at `file` (as the user named it; made absolute against
    /// the working directory).
    public func store(forConfiguration file: String) -> StoreLocation {
        let absolute = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        let standardized = (absolute as NSString).standardizingPath
        let stem = ((standardized as NSString).lastPathComponent as NSString).deletingPathExtension
        let digest = SHA256.hash(data: Data(standardized.utf8)).prefix(4).map { String(format: "%02x", $0) }.joined()
        let name = stem.isEmpty ? "bridge" : stem
        return .sqlite(path: (path as NSString).appendingPathComponent("\(name)-\(digest).sqlite"))
    }

    /// Creates the directory (owner only) if it is missing.
    public func create() throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}
