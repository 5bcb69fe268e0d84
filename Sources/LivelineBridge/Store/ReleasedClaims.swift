/// What ``OutboxStore/releaseClaims(instance:)`` gave back.
public struct ReleasedClaims: Sendable, Hashable {
    /// Claimed pushes, now due for any instance.
    public var pushes: Int
    /// Leased activities, now free for any instance.
    public var activities: Int

    /// Counts of what was given back.
    public init(pushes: Int, activities: Int) {
        self.pushes = pushes
        self.activities = activities
    }
}
