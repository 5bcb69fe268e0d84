import Crypto
import Foundation

/// Where a bridge keeps its SQLite store when its configuration names none: a file of its own
/// per configuration, under the user's state directory, so that two demos never share events or
/// activities and nothing is written into the directory the bridge was started from.
///
/// The directory is `$LIVELINE_STATE_DIR`, else `$XDG_STATE_HOME/liveline`, else the system's
/// place for an application's own files: `~/.local/state/liveline` on Linux (the XDG default),
/// `~/Library/Application Support/Liveline` on macOS; else `liveline` in the temporary
/// directory. The file is named for the configuration and its absolute path, like
/// `stripe-3f2a9c1e.sqlite` for `Scenarios/sources/stripe.yaml`: the same configuration finds its
/// store again from any working directory, and two `bridge.yaml` in different folders do not meet.
public struct BridgeStateDirectory: Sendable, Hashable {
    /// Where a system keeps an application's state under the home directory.
    public enum Convention: Sendable, Hashable {
        /// `~/.local/state/liveline`: the XDG base directories of Linux and other Unix systems.
        case xdg
        /// `~/Library/Application Support/Liveline`: macOS's.
        case appleLibrary

        /// This system's.
        public static var current: Convention {
            #if canImport(Darwin)
                .appleLibrary
            #else
                .xdg
            #endif
        }
    }

    /// The directory, absolute.
    public var path: String

    /// The directory the environment names, under `home` by this system's convention (or the
    /// one given).
    public init(environment: [String: String], convention: Convention = .current) {
        if let explicit = environment["LIVELINE_STATE_DIR"], !explicit.isEmpty {
            path = explicit
        } else if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            path = state + "/liveline"
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            switch convention {
            case .xdg: path = home + "/.local/state/liveline"
            case .appleLibrary: path = home + "/Library/Application Support/Liveline"
            }
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
