/// What ``AndroidPlatform`` remembers of one activity on one phone between its decisions: the
/// content the phone was last sent, how many messages it got, and FCM's allowance of
/// collapsible messages.
///
/// A platform that lives as long as its story (`play`, `load`) keeps this itself. The bridge
/// decides one step at a time, in whichever instance claims the key, so it stores the memory
/// with the key's engine state and hands it back with ``AndroidPlatform/remember(_:for:)``:
/// without it, every step's first message would be compared with nothing and sent at `HIGH`
/// priority, and every step would find FCM's allowance full again.
public struct AndroidMemory: Sendable, Hashable {
    /// The content of the newest message; nil before the first.
    public var shown: LiveUpdateContent?
    /// How many messages the activity has had.
    public var sequence: Int
    /// FCM's allowance of collapsible messages for the app; nil before the first message.
    public var collapsible: BudgetBucket?

    /// A memory of `sequence` messages, the newest showing `shown`.
    public init(shown: LiveUpdateContent? = nil, sequence: Int = 0, collapsible: BudgetBucket? = nil) {
        self.shown = shown
        self.sequence = sequence
        self.collapsible = collapsible
    }
}

extension AndroidMemory {
    /// Writes the memory in the compact byte form, for a stored activity state.
    public func write(to writer: inout CompactWriter) {
        writer.optional(shown) { writer, content in content.write(to: &writer) }
        writer.int(sequence)
        writer.optional(collapsible) { writer, bucket in bucket.write(to: &writer) }
    }

    /// The memory ``write(to:)`` wrote.
    public init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        shown = try reader.optional { (reader) throws(CompactDecodingError) in
            try LiveUpdateContent(reading: &reader)
        }
        sequence = try reader.int()
        guard sequence >= 0 else { throw reader.error("a message count of 0 or more") }
        collapsible = try reader.optional { (reader) throws(CompactDecodingError) in
            try BudgetBucket(reading: &reader)
        }
    }
}
