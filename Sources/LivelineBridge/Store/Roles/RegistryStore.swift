import Liveline

/// The activity registry as the registry API sees it: activities registered with their
/// targets and story, read and forgotten, what waits for them, where an event stands, and the
/// API keys that may do so.
public protocol RegistryStore: Sendable {
    /// Registers an activity or changes its targets and story, leaving its engine state alone.
    /// Returns whether it is new.
    func registerActivity(_ registration: ActivityRegistration, now: Millis) async throws -> Bool

    /// The activity with this key, if registered.
    func activity(_ key: String) async throws -> RegisteredActivity?

    /// Deletes the activity; whether it existed.
    func deleteActivity(_ key: String) async throws -> Bool

    /// How many events of this activity wait in the inbox (neither applied nor superseded).
    func pendingEvents(for activityKey: String) async throws -> Int

    /// How many pushes of this activity wait in the outbox (to be sent, or retried).
    func queuedPushes(for activityKey: String) async throws -> Int

    /// Whether the activity's start is in doubt: sent by an instance that stopped before APNs'
    /// answer was recorded, and not sent again until the app reports a token.
    func startInDoubt(for activityKey: String) async throws -> Bool

    /// Where one event stands (pending, applied or superseded, and its activity); nil when the
    /// inbox holds no event with this id from `source`.
    func eventStatus(source: String, eventID: String) async throws -> InboxEventStatus?

    /// The name of the stored key that `presented` hashes to, compared in constant time.
    func verifyAPIKey(_ presented: String) async throws -> String?
}
