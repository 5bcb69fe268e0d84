import Foundation
import Testing
@testable import LivelineBridge

/// Where a configuration without `store:` keeps its store: a file of its own, named for the
/// configuration's path, in a state directory made for its owner only.
@Suite struct BridgeStateDirectoryTests {
    @Test func theDirectoryComesFromTheEnvironmentInOrder() {
        #expect(
            BridgeStateDirectory(environment: ["LIVELINE_STATE_DIR": "/s", "XDG_STATE_HOME": "/x", "HOME": "/h"]).path
                == "/s")
        #expect(BridgeStateDirectory(environment: ["XDG_STATE_HOME": "/x", "HOME": "/h"]).path == "/x/liveline")
        #expect(
            BridgeStateDirectory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"], convention: .xdg).path
                == "/h/.local/state/liveline")
        #expect(BridgeStateDirectory(environment: [:]).path.hasSuffix("/liveline"))
    }

    /// Under the home directory, each system's own place: XDG's on Linux, the Library on macOS.
    @Test func theHomeDirectoryPlaceFollowsTheSystem() {
        let home = ["HOME": "/Users/ada"]
        #expect(
            BridgeStateDirectory(environment: home, convention: .appleLibrary).path
                == "/Users/ada/Library/Application Support/Liveline")
        #expect(BridgeStateDirectory(environment: home, convention: .xdg).path == "/Users/ada/.local/state/liveline")
        #expect(
            BridgeStateDirectory(environment: home.merging(["XDG_STATE_HOME": "/x"]) { $1 }, convention: .appleLibrary)
                .path == "/x/liveline", "an XDG_STATE_HOME set by hand wins on a Mac too")
        #if canImport(Darwin)
            #expect(BridgeStateDirectory.Convention.current == .appleLibrary)
        #else
            #expect(BridgeStateDirectory.Convention.current == .xdg)
        #endif
    }

    @Test func eachConfigurationHasAStoreOfItsOwnFoundFromAnyFolder() throws {
        let state = BridgeStateDirectory(environment: ["LIVELINE_STATE_DIR": "/s"])
        let stripe = state.store(forConfiguration: "/repo/Scenarios/sources/stripe.yaml")
        guard case .sqlite(let path) = stripe else { Issue.record("\(stripe)"); return }
        #expect(
            path.hasPrefix("/s/stripe-") && path.hasSuffix(".sqlite") && path.count == "/s/stripe-12345678.sqlite".count
        )
        #expect(
            state.store(forConfiguration: "/repo/Scenarios/sources/../sources/stripe.yaml") == stripe,
            "the same file, named another way")
        #expect(
            state.store(forConfiguration: "/other/stripe.yaml") != stripe, "two stripe.yaml in two folders do not meet")
        let relative = "Scenarios/sources/stripe.yaml"
        let absolute = FileManager.default.currentDirectoryPath + "/" + relative
        #expect(state.store(forConfiguration: relative) == state.store(forConfiguration: absolute))
    }

    @Test func theDirectoryIsMadeForItsOwnerOnly() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-state-\(UUID().uuidString)/nested"
        ).path
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try BridgeStateDirectory(environment: ["LIVELINE_STATE_DIR": path]).create()
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o700)
    }
}
