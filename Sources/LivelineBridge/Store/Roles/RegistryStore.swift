import Foundation

/// The activity registry as the registry API sees it: activities registered with their
/// targets and story, read and forgotten, and the API keys that may do so.
public protocol RegistryStore: Sendable {
    /// Registers an activity or changes its targets and story, leaving its engine state alone.
    /// Returns whether it is new.
    func registerActivity(_ registration: ActivityRegistration, now: Date) async throws -> Bool

    /// The activity with this key, if registered.
    func activity(_ key: String) async throws -> ActivityRecord?

    /// Deletes the activity; whether it existed.
    func deleteActivity(_ key: String) async throws -> Bool

    /// How many events of this activity wait in the inbox (neither applied nor superseded).
    func pendingEvents(for activityKey: String) async throws -> Int

    /// The name of the stored key that `presented` hashes to, compared in constant time.
    func verifyAPIKey(_ presented: String) async throws -> String?
}
