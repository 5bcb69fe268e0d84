extension LiveSession {
    /// One activity of a session, as ``LiveSession/activity(named:)`` and
    /// ``LiveSession/add(_:start:target:)`` hand it out: callers name an activity by its handle,
    /// never by its place in the run.
    public struct Activity: Hashable, Sendable, CustomStringConvertible {
        /// The activity's id in the run, as its pushes (`Push.activity`) and the session's
        /// events carry it.
        public let id: Int

        init(id: Int) {
            self.id = id
        }

        public var description: String { "activity \(id)" }
    }
}
